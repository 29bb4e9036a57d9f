import { describe, expect, it } from 'vitest';
import { manifestFixture } from '../../test/postgresql-fixture.ts';
import type { BackupManifest } from '../stores/manifest.ts';
import { selectRestoreCandidates } from './candidates.ts';

function manifest(backup: string, finishedAt: string, database = 'foo'): BackupManifest {
  const key = { namespace: 'default', postgresql: 'foodb', backup };
  return manifestFixture({ key, database, startedAt: finishedAt, finishedAt, verifiedAt: finishedAt });
}

describe('selectRestoreCandidates', () => {
  it('offers backups of the database newest first and says why the others were skipped', () => {
    const a = manifest('a', '2025-01-01T00:05:00Z');
    const b = manifest('b', '2025-01-01T00:15:00Z');
    const c = manifest('c', '2025-01-01T00:10:00Z');
    const other = manifest('other', '2025-01-01T00:20:00Z', 'bar');
    const unreadableKey = { namespace: 'default', postgresql: 'foodb', backup: 'broken' };
    const result = selectRestoreCandidates(
      { backups: [a, other, b, c], unreadable: [{ key: unreadableKey, message: 'not JSON' }] },
      'foo',
    );
    expect(result.candidates.map((m) => m.key.backup)).toEqual(['b', 'c', 'a']);
    expect(result.skipped).toEqual([
      { key: unreadableKey, reason: 'UnreadableManifest', message: 'not JSON' },
      { key: other.key, reason: 'OtherDatabase', message: 'it is a dump of database bar, not foo' },
    ]);
  });

  it('offers nothing when there is nothing', () => {
    expect(selectRestoreCandidates({ backups: [], unreadable: [] }, 'foo')).toEqual({ candidates: [], skipped: [] });
  });
});
