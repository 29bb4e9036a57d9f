import { describe, expect, it } from 'vitest';
import { outsideRequestScope, requestSignal, withRequestSignal } from './request-scope.ts';

describe('requestSignal', () => {
  it('is the request\'s own signal outside any scope', () => {
    const own = new AbortController().signal;
    expect(requestSignal(own)).toBe(own);
    expect(requestSignal(undefined)).toBeUndefined();
  });

  it('in a scope, ends with the scope, also after an await and for a request that brought no signal', async () => {
    const reconcile = new AbortController();
    const seen = await withRequestSignal(reconcile.signal, async () => {
      await Promise.resolve();
      return requestSignal(undefined);
    });
    expect(seen).toBe(reconcile.signal);
  });

  it('in a scope, ends with whichever ends first: the request\'s own signal or the scope\'s', () => {
    const reconcile = new AbortController();
    const own = new AbortController();
    const combined = withRequestSignal(reconcile.signal, () => requestSignal(own.signal));
    expect(combined?.aborted).toBe(false);
    reconcile.abort(new Error('leader election lost'));
    expect(combined?.aborted).toBe(true);
    expect((combined?.reason as Error).message).toBe('leader election lost');
  });

  it('is the request\'s own again in work started outside the scope from within it', () => {
    const reconcile = new AbortController();
    const seen = withRequestSignal(reconcile.signal, () => outsideRequestScope(() => requestSignal(undefined)));
    expect(seen).toBeUndefined();
  });
});
