// Every loop of the soak runs through here: it repeats `body` every `intervalMs` until the signal aborts, never two at
// once, and an error in one round is reported and the loop goes on (a sampler must outlive an API server restart).

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

/** Resolves after `ms`, or at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) { resolve(); return; }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
