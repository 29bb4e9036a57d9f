import { pino, type DestinationStream, type Level, type Logger, type LoggerOptions } from 'pino';
import type { QueueReason } from './queue/queue-reasons.ts';

/**
 * JSON logs with pino, with secrets removed by configuration rather than by hoping nobody logs one:
 *
 * 1. `DEFAULT_REDACT_PATHS`: fields whose name marks a credential (`password`, `token`, `authorization`, …) are
 *    censored at the top level and up to three objects deep (`err.request.headers.authorization`), arrays included.
 * 2. Kubernetes Secrets: the values under `data` and `stringData` of any Secret (or SecretList item) in a log call's
 *    object, at any depth, are censored; the keys stay, since which keys a Secret has is useful and not secret.
 *    A path cannot express "only when kind is Secret" (ConfigMaps have `data` too), hence a log formatter.
 *
 * Fields bound with `logger.child({...})` get (1) only; bind identities, not objects.
 */

export const REDACTED = '[REDACTED]';

/** Field names that hold credentials in the objects we log: HTTP headers, kubeconfig users, client options. */
const CREDENTIAL_FIELDS = [
  'password',
  'token',
  'bearerToken',
  'accessToken',
  'refreshToken',
  'clientSecret',
  'apiKey',
  'keyData', // client-node KubeConfig user: the client certificate's private key
  'authorization',
  'Authorization',
  'cookie',
  'proxy-authorization',
] as const;

/** How many objects deep {@link CREDENTIAL_FIELDS} are censored; each level is one more wildcard path per field. */
const CREDENTIAL_DEPTH = 3;

function pathTo(field: string, depth: number): string {
  const accessor = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
  if (depth === 0) return accessor;
  const prefix = Array.from({ length: depth }, () => '*').join('.');
  return accessor.startsWith('[') ? `${prefix}${accessor}` : `${prefix}.${accessor}`;
}

/** pino redact paths applied by every logger from {@link createLogger}. */
export const DEFAULT_REDACT_PATHS: readonly string[] = CREDENTIAL_FIELDS.flatMap((field) =>
  Array.from({ length: CREDENTIAL_DEPTH + 1 }, (_, depth) => pathTo(field, depth)),
);

export interface CreateLoggerOptions {
  /** Lowest level written. Default 'info'. */
  level?: Level | 'silent';
  /** Written as `name` on every line, e.g. the operator's name. Default: none. */
  name?: string;
  /** Extra pino redact paths (https://getpino.io/#/docs/redaction), added to {@link DEFAULT_REDACT_PATHS}. */
  redact?: readonly string[];
  /** Where lines go. Default: standard output. */
  destination?: DestinationStream;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function censorValues(map: unknown): unknown {
  if (!isObject(map)) return REDACTED;
  return Object.fromEntries(Object.keys(map).map((key) => [key, REDACTED]));
}

/**
 * A Secret: `kind: Secret`, or, for list items and cache entries that carry no kind, an object with metadata, a string
 * `type` (every Secret has one; ConfigMaps have none) and `data` or `stringData`.
 */
function looksLikeSecret(value: JsonObject): boolean {
  if (value.kind === 'Secret') return true;
  return (
    value.kind === undefined &&
    typeof value.type === 'string' &&
    isObject(value.metadata) &&
    (isObject(value.data) || isObject(value.stringData))
  );
}

/** Arrays and plain objects are walked; Errors and other class instances are left to their serializers. */
function isWalkable(value: unknown): value is JsonObject | unknown[] {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

function containsSecret(value: unknown, seen: WeakSet<object>): boolean {
  if (!isWalkable(value) || seen.has(value)) return false;
  seen.add(value);
  if (Array.isArray(value)) return value.some((element: unknown) => containsSecret(element, seen));
  return looksLikeSecret(value) || Object.values(value).some((field) => containsSecret(field, seen));
}

/**
 * Copies every array and plain object, censoring Secret values. Copies are memoised before their fields are visited,
 * so an object reached twice, or through a cycle, is replaced by its redacted copy everywhere.
 */
function copyWithoutSecretData(value: unknown, copies: WeakMap<object, unknown>): unknown {
  if (!isWalkable(value)) return value;
  if (copies.has(value)) return copies.get(value);
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    copies.set(value, copy);
    for (const element of value) copy.push(copyWithoutSecretData(element, copies));
    return copy;
  }
  const copy: JsonObject = {};
  copies.set(value, copy);
  const secretObject = looksLikeSecret(value);
  for (const [key, field] of Object.entries(value)) {
    copy[key] =
      secretObject && (key === 'data' || key === 'stringData') ? censorValues(field) : copyWithoutSecretData(field, copies);
  }
  return copy;
}

/** Removes Secret values from an object about to be logged, without touching the caller's object. */
export function redactSecretData<T>(value: T): T {
  // Most log objects hold no Secret: check first, so only those that do are copied.
  return containsSecret(value, new WeakSet()) ? (copyWithoutSecretData(value, new WeakMap()) as T) : value;
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const { level = 'info', name, redact = [], destination } = options;
  const loggerOptions: LoggerOptions = {
    level,
    ...(name === undefined ? {} : { name }),
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...DEFAULT_REDACT_PATHS, ...redact], censor: REDACTED },
    formatters: {
      // "level":"info" rather than pino's 30: readable in kubectl logs and what log pipelines expect.
      level: (label) => ({ level: label }),
      log: (object) => redactSecretData(object),
    },
    serializers: {
      // An error's own fields (a response body, say) can carry a Secret too. The serialized error has pino's own
      // prototype, which the walk skips, so it is copied to a plain object first.
      err: (error: Error) => {
        const serialized: Record<string, unknown> = pino.stdSerializers.err(error);
        return redactSecretData({ ...serialized });
      },
    },
  };
  return destination === undefined ? pino(loggerOptions) : pino(loggerOptions, destination);
}

export interface ReconcileLogContext {
  controller: string;
  namespace?: string;
  name: string;
  /** Unique per reconcile, as controller-runtime's `reconcileID`. */
  reconcileID: string;
  /** Why this reconcile runs, from the queue item. */
  reasons: readonly QueueReason[];
}

/** The child logger of one reconcile: every line carries the controller, the object, the reconcile ID and why it ran. */
export function reconcileLogger(base: Logger, context: ReconcileLogContext): Logger {
  const { controller, namespace, name, reconcileID, reasons } = context;
  return base.child({
    controller,
    ...(namespace === undefined || namespace === '' ? {} : { namespace }),
    name,
    reconcileID,
    reasons,
  });
}
