// Every loop of the soak runs through here: it repeats `body` every `intervalMs` until the signal aborts, never two at
// once, and an error in one round is reported and the loop goes on (a sampler must outlive an API server restart).
import { setTimeout as delay } from 'node:timers/promises';

export async function repeat(signal: AbortSignal, intervalMs: number, body: () => Promise<void>, onError: (error: unknown) => void): Promise<void> {
  while (!aborted(signal)) {
    const started = Date.now();
    try {
      await body();
    } catch (error) {
      if (!aborted(signal)) onError(error);
    }
    await sleep(Math.max(0, intervalMs - (Date.now() - started)), signal);
  }
}

/** Whether the signal has aborted, asked afresh: it changes while we await, which type narrowing cannot see. */
export function aborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** Resolves after `ms`, or at once when the signal aborts (never rejects: an ended run is not an error). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(Math.max(0, ms), undefined, { signal }).catch(() => undefined);
}
