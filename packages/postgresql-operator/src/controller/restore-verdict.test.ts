import { describe, expect, it } from 'vitest';
import { manifestFixture } from '../../test/postgresql-fixture.ts';
import type { BackupManifest } from '../stores/manifest.ts';
import { restoreFailureVerdict, restoreVerdict } from './restore-verdict.ts';

const manifest = (backup: string): BackupManifest =>
  manifestFixture({ key: { namespace: 'shop', postgresql: 'foodb', backup }, verifiedAt: '2026-01-02T03:05:02.000Z' });
const corrupted = { key: { namespace: 'shop', postgresql: 'foodb', backup: 'foodb-2' }, reason: 'Corrupted' as const, message: 'the dump has 100 bytes, its manifest says 2048' };

describe('restoreVerdict', () => {
  it('serves a restored pod, reports the backup, and warns about each newer backup passed over', () => {
    const verdict = restoreVerdict('foodb-x', { outcome: 'Restored', backup: manifest('foodb-1'), skipped: [corrupted] });
    expect(verdict).toMatchObject({ serve: true, metric: 'restored', condition: { status: 'True', reason: 'Restored' }, corrupted: [{ backup: 'foodb-2', message: corrupted.message }] });
    expect(verdict.condition.message).toBe('pod foodb-x was restored from backup foodb-1 (taken 2026-01-02T03:05:01.000Z) before it received traffic');
    expect(verdict.events.map((e) => [e.type, e.reason])).toEqual([['Warning', 'BackupCorrupted'], ['Normal', 'Restored']]);
    expect(verdict.events[0]?.note).toBe('backup foodb-2 was not restored (Corrupted): the dump has 100 bytes, its manifest says 2048; restored the older backup foodb-1 instead');
  });

  it('serves a brand-new database at once when there is no backup (the seed\'s first start)', () => {
    expect(restoreVerdict('foodb-x', { outcome: 'NoBackup' })).toMatchObject({ serve: true, metric: 'no_backup', condition: { status: 'True', reason: 'NoBackup' }, events: [] });
  });

  it('serves data already on a volume without restoring over it', () => {
    const verdict = restoreVerdict('foodb-x', { outcome: 'NotEmpty', found: ['table public.orders'] });
    expect(verdict).toMatchObject({ serve: true, metric: 'not_empty', condition: { status: 'True', reason: 'DataPresent' } });
    expect(verdict.condition.message).toContain('table public.orders');
  });

  it('does not serve when no stored backup can be restored', () => {
    const verdict = restoreVerdict('foodb-x', { outcome: 'NoUsableBackup', skipped: [corrupted] });
    expect(verdict).toMatchObject({ serve: false, metric: 'no_usable_backup', condition: { status: 'False', reason: 'NoUsableBackup' } });
    expect(verdict.events.map((e) => e.reason)).toEqual(['BackupCorrupted', 'NoUsableBackup']);
  });
});

describe('restoreFailureVerdict', () => {
  it('keeps the pod out of the Service and says it retries', () => {
    expect(restoreFailureVerdict('foodb-x', { reason: 'RestoreFailed', message: 'pg_restore exited with code 1' })).toEqual({
      serve: false,
      condition: { status: 'False', reason: 'RestoreFailed', message: 'pod foodb-x was not restored and receives no traffic; retrying: pg_restore exited with code 1' },
      events: [{ type: 'Warning', reason: 'RestoreFailed', note: 'pod foodb-x was not restored and receives no traffic; retrying: pg_restore exited with code 1' }],
      metric: 'failed',
      corrupted: [],
    });
  });

  it('counts a restore that could not start yet (store or server not reachable) as waiting, not failed', () => {
    expect(restoreFailureVerdict('foodb-x', { reason: 'BackupStoreUnavailable', message: 'the backup store service has no ready endpoint' }).metric).toBe('waiting');
    expect(restoreFailureVerdict('foodb-x', { reason: 'DatabaseUnreachable', message: 'connection refused' }).metric).toBe('waiting');
    expect(restoreFailureVerdict('foodb-x', { reason: 'NoMatchingIdentity', message: 'no identity' }).metric).toBe('failed');
  });

  it('does not say it retries what no retry fixes', () => {
    const verdict = restoreFailureVerdict('foodb-x', { reason: 'PgToolMissing', message: 'pg_restore 16 is needed for a PostgreSQL 16 server, …' });
    expect(verdict).toMatchObject({
      serve: false,
      condition: { status: 'False', reason: 'PgToolMissing', message: 'pod foodb-x was not restored and receives no traffic: pg_restore 16 is needed for a PostgreSQL 16 server, …' },
    });
  });
});
