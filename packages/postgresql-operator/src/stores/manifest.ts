import { BACKUP_TRIGGERS, type BackupTrigger } from '../api/backup-lifecycle.ts';
import { SHA256_HEX } from '../api/formats.ts';
import { AGE_RECIPIENT_PATTERN } from '../encryption/age-keys.ts';
import type { BackupKey } from './store.ts';

/**
 * The manifest of a stored backup: what was dumped, by which pg_dump, and the size and SHA-256 of the dump file. It is
 * written last, after the dump was stored durably, decoded in full by pg_restore on its way to the store, and read
 * back from the store with the size and SHA-256 of what was decoded, so "a backup exists" means "its manifest
 * exists": an interrupted or failed backup never looks complete.
 *
 * Checked by hand rather than with a schema library: the operator's runtime loads no TypeBox (9-10 MiB of its RSS),
 * and this is the one document it parses.
 */

/** Bumped when the manifest changes incompatibly; readers refuse versions they do not know. */
export const MANIFEST_VERSION = 1;
/**
 * The version of an encrypted backup's manifest: the same fields and `encryption`. An operator from before encryption
 * refuses it for its version, rather than handing the ciphertext to pg_restore; plain backups keep version 1, so it
 * still restores those.
 */
export const ENCRYPTED_MANIFEST_VERSION = 2;

/**
 * How an encrypted backup's dump was encrypted: the age format, to these recipients (public keys). The manifest's
 * `size` and `sha256` are the stored ciphertext's; these are the plaintext dump's, which pg_restore decoded.
 */
export interface BackupEncryption {
  format: 'age';
  /** The recipients it was encrypted to: the identity of any one of them decrypts it (the file does not name them). */
  recipients: string[];
  plaintextSize: number;
  plaintextSha256: string;
}

export interface BackupManifest {
  /** {@link ENCRYPTED_MANIFEST_VERSION} exactly when `encryption` is present. */
  manifestVersion: typeof MANIFEST_VERSION | typeof ENCRYPTED_MANIFEST_VERSION;
  key: BackupKey;
  /** The database dumped (`spec.db`). */
  database: string;
  trigger: BackupTrigger;
  /** pg_dump's custom format (`-Fc`): compressed, one file, readable by pg_restore of the same major or newer. */
  format: 'custom';
  /** `server_version`, e.g. "15.18". */
  serverVersion: string;
  /** `server_version_num`, e.g. 150018. */
  serverVersionNum: number;
  /** The pg_dump that wrote the dump, e.g. "15.18": the server's major; a restore needs a server of this major or newer. */
  pgDumpVersion: string;
  startedAt: string;
  /** When pg_dump finished and the dump was durable. */
  finishedAt: string;
  /** When pg_restore had decoded the whole dump and the stored dump had read back with this size and SHA-256. */
  verifiedAt: string;
  /** Of the stored dump, as `read` streams it: the ciphertext when encrypted. */
  size: number;
  sha256: string;
  /** Present only on an encrypted backup. */
  encryption?: BackupEncryption;
}

export class InvalidManifestError extends Error {
  override name = 'InvalidManifestError';
}

/** What is wrong with a field's value, or undefined when it is right. */
type FieldCheck = (value: unknown) => string | undefined;

const nonEmpty: FieldCheck = (value) =>
  typeof value === 'string' && value !== '' ? undefined : 'must be a non-empty string';
const count: FieldCheck = (value) =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : 'must be a whole number, 0 or more';
const oneOf =
  (...allowed: readonly unknown[]): FieldCheck =>
  (value) =>
    allowed.includes(value) ? undefined : `must be ${allowed.map((a) => JSON.stringify(a)).join(' or ')}`;
// RFC 3339, as Date.prototype.toISOString writes it and Kubernetes timestamps are.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const time: FieldCheck = (value) =>
  typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value))
    ? undefined
    : 'must be an RFC 3339 date-time';
const sha256 = new RegExp(SHA256_HEX);
const digest: FieldCheck = (value) =>
  typeof value === 'string' && sha256.test(value) ? undefined : 'must be 64 lowercase hex digits';

const KEY_FIELDS: Record<keyof BackupKey, FieldCheck> = { namespace: nonEmpty, postgresql: nonEmpty, backup: nonEmpty };

const RECIPIENT = new RegExp(AGE_RECIPIENT_PATTERN);
const recipients: FieldCheck = (value) =>
  Array.isArray(value) && value.length > 0 && value.every((r) => typeof r === 'string' && RECIPIENT.test(r))
    ? undefined
    : 'must be a list of age recipients (age1...), at least one';

const ENCRYPTION_FIELDS: Record<keyof BackupEncryption, FieldCheck> = {
  format: oneOf('age'),
  recipients,
  plaintextSize: count,
  plaintextSha256: digest,
};

const MANIFEST_FIELDS: Record<Exclude<keyof BackupManifest, 'encryption'>, FieldCheck> = {
  manifestVersion: oneOf(MANIFEST_VERSION, ENCRYPTED_MANIFEST_VERSION),
  key: (value) => (isObject(value) ? undefined : 'must be an object'),
  database: nonEmpty,
  trigger: oneOf(...BACKUP_TRIGGERS),
  format: oneOf('custom'),
  serverVersion: nonEmpty,
  serverVersionNum: count,
  pgDumpVersion: nonEmpty,
  startedAt: time,
  finishedAt: time,
  verifiedAt: time,
  size: count,
  sha256: digest,
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `/field message` for each field of `value` that `checks` refuses, in the order of `checks`. */
function problemsOf(value: Record<string, unknown>, checks: Record<string, FieldCheck>, path: string): string[] {
  return Object.entries(checks).flatMap(([field, check]) => {
    const problem = field in value ? check(value[field]) : 'is missing';
    return problem === undefined ? [] : [`${path}/${field} ${problem}`];
  });
}

/** Parses a stored manifest, refusing anything that is not exactly a manifest this code understands. */
export function parseManifest(json: string): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new InvalidManifestError(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(value)) throw new InvalidManifestError('/ must be an object');
  const problems = problemsOf(value, MANIFEST_FIELDS, '');
  if (isObject(value.key)) problems.push(...problemsOf(value.key, KEY_FIELDS, '/key'));
  problems.push(...encryptionProblems(value));
  // In field order, so the version comes first: a newer operator's manifest is refused for its version, not its fields.
  if (problems.length > 0) throw new InvalidManifestError(problems.slice(0, 3).join('; '));
  return value as unknown as BackupManifest;
}

/** An encrypted manifest has version 2 and a valid `encryption`; a plain one, version 1 and none. */
function encryptionProblems(value: Record<string, unknown>): string[] {
  const encrypted = value.manifestVersion === ENCRYPTED_MANIFEST_VERSION;
  if (!('encryption' in value)) return encrypted ? ['/encryption is missing (a version 2 manifest is of an encrypted backup)'] : [];
  if (!encrypted) return [`/encryption is present, but only a version ${ENCRYPTED_MANIFEST_VERSION} manifest may have it`];
  return isObject(value.encryption) ? problemsOf(value.encryption, ENCRYPTION_FIELDS, '/encryption') : ['/encryption must be an object'];
}

export function serializeManifest(manifest: BackupManifest): string {
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  // Checked on the way out too: a manifest this code could not read back would hide a good backup.
  parseManifest(text);
  return text;
}
