import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('Semaphore', () => {
  it('never runs more than its limit at once and serves waiters in arrival order', async () => {
    const semaphore = new Semaphore(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const runs = gates.map((gate, index) =>
      semaphore.run(async () => {
        started.push(index);
        running += 1;
        peak = Math.max(peak, running);
        await gate.promise;
        running -= 1;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[1]?.resolve();
    await runs[1];
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.resolve();
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
    expect(semaphore.inUse).toBe(0);
  });

  it('gives the permit back when the work fails', async () => {
    const semaphore = new Semaphore(1);
    await expect(semaphore.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(semaphore.run(() => Promise.resolve('next'))).resolves.toBe('next');
    expect(semaphore.inUse).toBe(0);
  });

  it('refuses a limit below one', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });

  it('lets a waiter whose signal aborts leave the queue, and gives the next permit to the one behind it', async () => {
    const semaphore = new Semaphore(1);
    const holder = deferred();
    const holding = semaphore.run(() => holder.promise);
    const reconcile = new AbortController();
    const abandoned = semaphore.run(() => Promise.resolve('ran'), reconcile.signal).catch((error: unknown) => error);
    const next = semaphore.run(() => Promise.resolve('next ran'));
    reconcile.abort(new Error('leader election lost'));
    expect(await abandoned).toEqual(new Error('leader election lost'));
    holder.resolve();
    await holding;
    expect(await next).toBe('next ran');
    expect(semaphore.inUse).toBe(0);
    await expect(semaphore.run(() => Promise.resolve('late'), reconcile.signal)).rejects.toThrow('leader election lost');
  });
});
