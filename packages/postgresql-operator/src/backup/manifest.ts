import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { SHA256_HEX } from '../api/formats.ts';

/**
 * The manifest of a stored backup: what was dumped, by which pg_dump, and the size and SHA-256 of the dump file. It is
 * written last, after the dump was stored durably, decoded in full by pg_restore on its way to the store, and read
 * back from the store with the size and SHA-256 of what was decoded, so "a backup exists" means "its manifest
 * exists": an interrupted or failed backup never looks complete.
 */

/** Bumped when the manifest changes incompatibly; readers refuse versions they do not know. */
export const MANIFEST_VERSION = 1;

const BackupKeySchema = Type.Object({
  namespace: Type.String({ minLength: 1 }),
  postgresql: Type.String({ minLength: 1 }),
  backup: Type.String({ minLength: 1 }),
});

export const BackupManifestSchema = Type.Object({
  manifestVersion: Type.Literal(MANIFEST_VERSION),
  key: BackupKeySchema,
  /** The database dumped (`spec.db`). */
  database: Type.String({ minLength: 1 }),
  trigger: Type.Union([Type.Literal('Scheduled'), Type.Literal('OnDemand'), Type.Literal('Final')]),
  /** pg_dump's custom format (`-Fc`): compressed, one file, readable by pg_restore of the same major or newer. */
  format: Type.Literal('custom'),
  /** `server_version`, e.g. "15.18". */
  serverVersion: Type.String({ minLength: 1 }),
  /** `server_version_num`, e.g. 150018. */
  serverVersionNum: Type.Integer({ minimum: 0 }),
  /** The pg_dump that wrote the dump, e.g. "15.18"; a restore needs a pg_restore of this major or newer. */
  pgDumpVersion: Type.String({ minLength: 1 }),
  startedAt: Type.String({ format: 'date-time' }),
  /** When pg_dump finished and the dump was durable. */
  finishedAt: Type.String({ format: 'date-time' }),
  /** When pg_restore had decoded the whole dump and the stored dump had read back with this size and SHA-256. */
  verifiedAt: Type.String({ format: 'date-time' }),
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: SHA256_HEX }),
});

export type BackupManifest = Static<typeof BackupManifestSchema>;

export class InvalidManifestError extends Error {
  override name = 'InvalidManifestError';
}

/** Parses a stored manifest, refusing anything that is not exactly a manifest this code understands. */
export function parseManifest(text: string): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidManifestError(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (Value.Check(BackupManifestSchema, value)) return value;
  const problems = Value.Errors(BackupManifestSchema, value)
    .slice(0, 3)
    .map((error) => `${error.instancePath || '/'} ${error.message}`);
  throw new InvalidManifestError(problems.join('; '));
}

export function serializeManifest(manifest: BackupManifest): string {
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  // Checked on the way out too: a manifest this code could not read back would hide a good backup.
  parseManifest(text);
  return text;
}
