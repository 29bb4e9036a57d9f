import { parseArgs } from 'node:util';
import { DEFAULT_PAGE_MESSAGE, DEFAULT_PORT, DEFAULT_RETRY_AFTER_SECONDS } from '../api/defaults.ts';
import { parseRfc3339 } from '../api/rfc3339.ts';

/**
 * The page server's command line, written by the operator into the maintenance Deployment (`pageServerArgs`) and
 * read by `main.ts` (`parsePageServerFlags`); one module, so the two cannot drift apart.
 *
 *   --port=8080                          port to listen on (default 8080)
 *   --bind-address=10.1.2.3              address to listen on; else $BIND_ADDRESS; else every interface
 *   --content-file=/etc/maintpage/page.html
 *                                        HTML page to serve, re-read when it changes; else a built-in page
 *   --message="Back soon."               plain text for the built-in page and JSON answers
 *   --retry-after-seconds=300            Retry-After when no end is known or it has passed (default 300)
 *   --retry-after-until=2026-03-01T22:00:00Z
 *                                        the end of maintenance: Retry-After counts down to it
 */

/** Environment variable with the bind address; the operator sets it to the Pod IP (fieldRef status.podIP). */
export const BIND_ADDRESS_ENV = 'BIND_ADDRESS';

/** What the operator configures; the bind address comes from the environment. */
export interface PageServerArgs {
  port: number;
  message: string;
  retryAfterSeconds: number;
  /** RFC 3339 with a zone, as in `schedule.end`. */
  retryAfterUntil?: string | undefined;
  contentFile?: string | undefined;
}

export interface PageServerOptions {
  port: number;
  /** `undefined` listens on every interface. */
  bindAddress: string | undefined;
  message: string;
  retryAfterSeconds: number;
  retryAfterUntil: Date | undefined;
  contentFile: string | undefined;
}

/** A command line the page server refuses; `main.ts` prints the message and exits with status 2. */
export class PageServerFlagError extends Error {
  override name = 'PageServerFlagError';
}

export function pageServerArgs(args: PageServerArgs): string[] {
  return [
    `--port=${args.port}`,
    `--message=${args.message}`,
    `--retry-after-seconds=${args.retryAfterSeconds}`,
    ...(args.retryAfterUntil === undefined ? [] : [`--retry-after-until=${args.retryAfterUntil}`]),
    ...(args.contentFile === undefined ? [] : [`--content-file=${args.contentFile}`]),
  ];
}

function integerFlag(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || value < min || value > max) {
    throw new PageServerFlagError(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

export function parsePageServerFlags(argv: readonly string[], env: NodeJS.ProcessEnv): PageServerOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        'bind-address': { type: 'string' },
        'content-file': { type: 'string' },
        message: { type: 'string' },
        'retry-after-seconds': { type: 'string' },
        'retry-after-until': { type: 'string' },
      },
    }));
  } catch (error) {
    throw new PageServerFlagError(error instanceof Error ? error.message : String(error));
  }
  const until = values['retry-after-until'];
  const untilInstant = until === undefined ? undefined : parseRfc3339(until);
  if (until !== undefined && untilInstant === undefined) {
    throw new PageServerFlagError(
      `--retry-after-until must be an RFC 3339 time with a zone, such as 2026-03-01T22:00:00Z, got ${JSON.stringify(until)}`,
    );
  }
  const bindAddress = values['bind-address'] ?? env[BIND_ADDRESS_ENV];
  return {
    // Port 0 (any free port) is for tests; the operator always passes a real one.
    port: integerFlag('port', values.port, DEFAULT_PORT, 0, 65535),
    bindAddress: bindAddress === '' ? undefined : bindAddress,
    message: values.message ?? DEFAULT_PAGE_MESSAGE,
    retryAfterSeconds: integerFlag('retry-after-seconds', values['retry-after-seconds'], DEFAULT_RETRY_AFTER_SECONDS, 1, 2 ** 31 - 1),
    retryAfterUntil: untilInstant === undefined ? undefined : new Date(untilInstant),
    contentFile: values['content-file'],
  };
}
