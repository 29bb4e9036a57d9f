import { describe, expect, it } from 'vitest';
import { manifestFixture } from '../../test/postgresql-fixture.ts';
import { ENCRYPTED_MANIFEST_VERSION, InvalidManifestError, type BackupManifest, parseManifest, serializeManifest } from './manifest.ts';

const manifest = manifestFixture();
/** The shape of an age recipient (the manifest checks no checksum: the backup Job did). */
const RECIPIENT = `age1${'q'.repeat(58)}`;

const refusal = (value: unknown): string => {
  try {
    parseManifest(typeof value === 'string' ? value : JSON.stringify(value));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidManifestError);
    return (error as Error).message;
  }
  throw new Error('the manifest was accepted');
};

describe('parseManifest', () => {
  it('reads back what serializeManifest wrote, and tolerates fields it does not know', () => {
    expect(parseManifest(serializeManifest(manifest))).toEqual(manifest);
    expect(parseManifest(JSON.stringify({ ...manifest, note: 'added by a later minor version' }))).toMatchObject(manifest);
    expect(parseManifest(JSON.stringify({ ...manifest, startedAt: '2026-01-01T09:05:00+09:00' })).startedAt).toBe(
      '2026-01-01T09:05:00+09:00',
    );
  });

  it('says what is wrong, field by field, the version first', () => {
    expect(refusal('{"manifestVersion": 1')).toMatch(/^not JSON: /);
    expect(refusal([manifest])).toBe('/ must be an object');
    expect(refusal({ ...manifest, manifestVersion: 3, format: 'plain' })).toBe(
      '/manifestVersion must be 1 or 2; /format must be "custom"',
    );
    const { database: _database, ...withoutDatabase } = manifest;
    expect(refusal(withoutDatabase)).toBe('/database is missing');
    expect(refusal({ ...manifest, trigger: 'Hourly' })).toBe('/trigger must be "Scheduled" or "OnDemand" or "Final"');
    expect(refusal({ ...manifest, key: { ...manifest.key, backup: '' } })).toBe('/key/backup must be a non-empty string');
    expect(refusal({ ...manifest, key: 'default/foodb/x' })).toBe('/key must be an object');
    expect(refusal({ ...manifest, size: -1 })).toBe('/size must be a whole number, 0 or more');
    expect(refusal({ ...manifest, serverVersionNum: 15.5 })).toBe('/serverVersionNum must be a whole number, 0 or more');
    expect(refusal({ ...manifest, sha256: 'A'.repeat(64) })).toBe('/sha256 must be 64 lowercase hex digits');
    expect(refusal({ ...manifest, finishedAt: 'yesterday' })).toBe('/finishedAt must be an RFC 3339 date-time');
    expect(refusal({ ...manifest, verifiedAt: '2026-13-45T99:00:00Z' })).toBe('/verifiedAt must be an RFC 3339 date-time');
  });

  it('reads an encrypted backup\'s manifest (version 2, with encryption) and refuses one that mixes the two', () => {
    const encryption = { format: 'age', recipients: [RECIPIENT], plaintextSize: 10, plaintextSha256: 'b'.repeat(64) } as const;
    const encrypted: BackupManifest = { ...manifest, manifestVersion: ENCRYPTED_MANIFEST_VERSION, encryption: { ...encryption, recipients: [RECIPIENT] } };
    expect(parseManifest(serializeManifest(encrypted))).toEqual(encrypted);
    expect(refusal({ ...manifest, encryption })).toBe('/encryption is present, but only a version 2 manifest may have it');
    expect(refusal({ ...manifest, manifestVersion: 2 })).toBe('/encryption is missing (a version 2 manifest is of an encrypted backup)');
    expect(refusal({ ...encrypted, encryption: { ...encryption, recipients: ['AGE-SECRET-KEY-1X'] } })).toBe(
      '/encryption/recipients must be a list of age recipients (age1...), at least one',
    );
  });

  it('names at most three problems', () => {
    expect(refusal({}).split('; ')).toEqual(['/manifestVersion is missing', '/key is missing', '/database is missing']);
  });

  it('refuses to write a manifest it could not read back', () => {
    expect(() => serializeManifest({ ...manifest, sha256: 'not a digest' })).toThrow(InvalidManifestError);
  });
});
