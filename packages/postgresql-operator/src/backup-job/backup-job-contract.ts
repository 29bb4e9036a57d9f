import { BACKUP_TRIGGERS, type BackupTrigger } from '../api/backup-lifecycle.ts';
import type { S3Location } from '../api/resolved-s3-store.ts';
import { BACKUP_STAGES, type BackupStage } from '../dump/run-backup.ts';
import { checkBackupKey, type BackupKey } from '../stores/store.ts';

/**
 * What the operator and a backup Job tell each other. The operator hands the Job its work in one environment variable
 * (nothing secret in it: the password and the store's credentials are files of a projected volume, mounted from the
 * Secrets the PostgreSQL names), and the Job answers through its container's termination message, which the operator
 * reads from the Pod's status: it never reads a Job's logs.
 */

/** The image's entry point runs a backup Job, not the operator, when this is its first argument. */
export const BACKUP_JOB_SUBCOMMAND = 'backup-job';
/** The environment variable that holds the Job's {@link BackupJobInput}, as JSON. */
export const BACKUP_JOB_INPUT_ENV = 'BACKUP_JOB';
/**
 * Where the Job's projected volume is mounted: `password`; for S3 `accessKeyId`, `secretAccessKey`, `ca.crt`; for the
 * backup volume `store-token`, a ServiceAccount token for the backup store service's audience.
 */
export const BACKUP_JOB_SECRETS_DIR = '/var/run/secrets/exp.wheel.jp/backup';
export const BACKUP_JOB_FILES = { password: 'password', accessKeyId: 'accessKeyId', secretAccessKey: 'secretAccessKey', caBundle: 'ca.crt', storeToken: 'store-token' } as const;
/** The kubelet's default terminationMessagePath. */
export const TERMINATION_MESSAGE_PATH = '/dev/termination-log';
/** The kubelet keeps this much of a termination message. */
const MAX_TERMINATION_MESSAGE_BYTES = 4096;

export interface BackupJobInput {
  key: BackupKey;
  trigger: BackupTrigger;
  /** The serving pod's address and who to connect as; the password is the mounted file. */
  connection: { host: string; port: number; database: string; user: string };
  store: BackupJobStore;
  /** `spec.backup.encryption.recipients` (public keys): the dump is encrypted to them. Absent: not encrypted. */
  encryption?: { recipients: string[] };
}

export type BackupJobStore =
  /** A bucket; the credentials (and a CA bundle when `caBundle`) are mounted files. */
  | ({ kind: 's3'; caBundle: boolean } & S3Location)
  /**
   * The backup volume, through the backup store service: its address, the name and the (public) certificate it must
   * present; the token is a mounted file.
   */
  | { kind: 'volume'; url: string; serverName: string; ca: string };

export type BackupJobResult =
  | { result: 'Completed'; sha256: string; size: number }
  | { result: 'Failed'; stage?: BackupStage; error: string };

export class BackupJobInputError extends Error {
  override name = 'BackupJobInputError';
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function field<T>(object: Record<string, unknown>, name: string, check: (value: unknown) => value is T, what: string): T {
  const value = object[name];
  if (!check(value)) throw new BackupJobInputError(`${BACKUP_JOB_INPUT_ENV}: ${name} must be ${what}`);
  return value;
}
const isString = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isPort = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0 && (value as number) < 65536;
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
const isTrigger = (value: unknown): value is BackupTrigger => (BACKUP_TRIGGERS as readonly unknown[]).includes(value);
const isObject = (value: unknown): value is Record<string, unknown> => isRecord(value);

/** The Job's input from its environment; a Job made by another version of the operator gets an error naming the field. */
export function parseBackupJobInput(json: string | undefined): BackupJobInput {
  if (json === undefined || json === '') throw new BackupJobInputError(`${BACKUP_JOB_INPUT_ENV} is not set: this entry point runs only in a backup Job the operator creates`);
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new BackupJobInputError(`${BACKUP_JOB_INPUT_ENV} is not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(raw)) throw new BackupJobInputError(`${BACKUP_JOB_INPUT_ENV} must be a JSON object`);
  const key = field(raw, 'key', isObject, 'an object');
  const connection = field(raw, 'connection', isObject, 'an object');
  const store = field(raw, 'store', isObject, 'an object');
  const input: BackupJobInput = {
    key: { namespace: field(key, 'namespace', isString, 'a namespace'), postgresql: field(key, 'postgresql', isString, 'a name'), backup: field(key, 'backup', isString, 'a name') },
    trigger: field(raw, 'trigger', isTrigger, `one of ${BACKUP_TRIGGERS.join(', ')}`),
    connection: {
      host: field(connection, 'host', isString, 'an address'),
      port: field(connection, 'port', isPort, 'a port number'),
      database: field(connection, 'database', isString, 'a database name'),
      user: field(connection, 'user', isString, 'a user name'),
    },
    store: parseStore(store),
    ...(raw.encryption === undefined ? {} : { encryption: parseEncryption(field(raw, 'encryption', isObject, 'an object')) }),
  };
  checkBackupKey(input.key);
  return input;
}

/** The recipients as given; their keys are checked where the Job uses them (parseAgeRecipients), with their messages. */
function parseEncryption(encryption: Record<string, unknown>): { recipients: string[] } {
  const isRecipientList = (value: unknown): value is string[] => Array.isArray(value) && value.length > 0 && value.every(isString);
  return { recipients: field(encryption, 'recipients', isRecipientList, 'a list of age recipients') };
}

function parseStore(store: Record<string, unknown>): BackupJobStore {
  if (store.kind === 'volume') {
    return {
      kind: 'volume',
      url: field(store, 'url', isString, 'the backup store service\'s URL'),
      serverName: field(store, 'serverName', isString, 'a DNS name'),
      ca: field(store, 'ca', isString, 'a PEM certificate'),
    };
  }
  if (store.kind !== 's3') throw new BackupJobInputError(`${BACKUP_JOB_INPUT_ENV}: store.kind must be s3 or volume`);
  return {
    kind: 's3',
    bucket: field(store, 'bucket', isString, 'a bucket name'),
    prefix: typeof store.prefix === 'string' ? store.prefix : '',
    ...(store.endpoint === undefined ? {} : { endpoint: field(store, 'endpoint', isString, 'a URL') }),
    region: field(store, 'region', isString, 'a region'),
    forcePathStyle: field(store, 'forcePathStyle', isBoolean, 'true or false'),
    caBundle: field(store, 'caBundle', isBoolean, 'true or false'),
  };
}

/** The termination message for `result`, within what the kubelet keeps: a long error loses its middle. */
export function serializeBackupJobResult(result: BackupJobResult): string {
  const text = JSON.stringify(result);
  if (Buffer.byteLength(text) <= MAX_TERMINATION_MESSAGE_BYTES || result.result !== 'Failed') return text;
  const overflow = Buffer.byteLength(text) - MAX_TERMINATION_MESSAGE_BYTES + 16;
  const error = Buffer.from(result.error);
  const keep = Math.max(0, error.length - overflow);
  const shortened = `${error.subarray(0, Math.floor(keep / 2)).toString()} … ${error.subarray(error.length - Math.ceil(keep / 2)).toString()}`;
  return JSON.stringify({ ...result, error: shortened });
}

/** The Job's answer, or undefined when the message is not one (the process died before writing it). */
export function parseBackupJobResult(message: string | undefined): BackupJobResult | undefined {
  if (message === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!isRecord(raw)) return undefined;
  if (raw.result === 'Completed' && typeof raw.sha256 === 'string' && typeof raw.size === 'number') return { result: 'Completed', sha256: raw.sha256, size: raw.size };
  if (raw.result === 'Failed' && typeof raw.error === 'string') {
    const stage = (BACKUP_STAGES as readonly unknown[]).includes(raw.stage) ? (raw.stage as BackupStage) : undefined;
    return { result: 'Failed', error: raw.error, ...(stage === undefined ? {} : { stage }) };
  }
  return undefined;
}
