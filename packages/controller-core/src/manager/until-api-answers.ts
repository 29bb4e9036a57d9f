import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { ReconnectBackoff, type ReconnectBackoffOptions } from '../informer/backoff.ts';
import { ApiError } from '../client/errors.ts';

// The socket and undici codes of a request that got no answer from the API server: refused, reset, timed out, no route.
const NO_ANSWER_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED',
]);

function codeOf(error: unknown): string | undefined {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * Whether a failed request is worth trying again because the API server did not (properly) answer it: no connection or
 * no response, 429 (API Priority and Fairness turned it away) or a 5xx (the API server restarting, etcd unavailable).
 * A 4xx answer such as 403 is the API server's verdict, which waiting does not change.
 */
export function apiDidNotAnswer(error: unknown): boolean {
  if (error instanceof ApiError) return error.status === 429 || error.status >= 500;
  const code = codeOf(error);
  return code !== undefined && NO_ANSWER_CODES.has(code);
}

export interface UntilApiAnswersOptions {
  logger: Pick<Logger, 'warn'>;
  /** The waits between attempts. Default: the reflector's, 800 ms growing to 30 s, jittered. */
  backoff?: ReconnectBackoffOptions;
}

/**
 * Runs `call`, a request an operator makes once before its controllers start (reading its own Pod, keeping a
 * certificate Secret), again and again while the API server does not answer, as the informers do after it: an
 * operator started during an API server outage (a whole cluster coming back) then starts as soon as the API server
 * does. Exiting instead would put it into CrashLoopBackOff, whose restarts are up to 5 minutes apart, with a stack
 * trace for a log. Each failure is logged with `what` was being done and when the next attempt is. Any other error is
 * thrown at once.
 */
export async function untilApiAnswers<R>(what: string, call: () => Promise<R>, options: UntilApiAnswersOptions): Promise<R> {
  const backoff = new ReconnectBackoff(options.backoff);
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!apiDidNotAnswer(error)) throw error;
      const waitMs = Math.round(backoff.nextDelayMs());
      options.logger.warn({ attempt, retryInMs: waitMs, error: (error as Error).message }, `${what}: the API server did not answer; trying again`);
      await sleep(waitMs);
    }
  }
}
