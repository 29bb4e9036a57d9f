import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, retryDelayMs, type AttemptOutcome } from './retry-policy.ts';

const policy = DEFAULT_RETRY_POLICY;
const top = () => 0.999999;
const bottom = () => 0;
const delay = (outcome: AttemptOutcome, repeatability: 'repeatable' | 'once', attempt = 1) =>
  retryDelayMs(outcome, repeatability, attempt, policy, bottom);

describe('retryDelayMs', () => {
  it.each([500, 502, 503, 504])('repeats a repeatable request after a %i', (status) => {
    expect(delay({ kind: 'answer', status }, 'repeatable')).toBe(125);
  });

  it('repeats a repeatable request that got no answer, reached the server or not', () => {
    expect(delay({ kind: 'no-answer', reachedServer: true }, 'repeatable')).toBe(125);
    expect(delay({ kind: 'no-answer', reachedServer: false }, 'repeatable')).toBe(125);
  });

  it('repeats a PUT only when Prism provably did not process it', () => {
    expect(delay({ kind: 'answer', status: 500 }, 'once')).toBeUndefined();
    expect(delay({ kind: 'no-answer', reachedServer: true }, 'once')).toBeUndefined();
    expect(delay({ kind: 'no-answer', reachedServer: false }, 'once')).toBe(125);
    expect(delay({ kind: 'answer', status: 429, retryAfterMs: 2000 }, 'once')).toBe(2000);
  });

  it('waits out Retry-After on a 429, or backs off when there is none, up to maxRetryAfterMs', () => {
    expect(delay({ kind: 'answer', status: 429, retryAfterMs: 1000 }, 'repeatable')).toBe(1000);
    expect(delay({ kind: 'answer', status: 429 }, 'repeatable')).toBe(125);
    expect(delay({ kind: 'answer', status: 429, retryAfterMs: policy.maxRetryAfterMs + 1 }, 'repeatable')).toBeUndefined();
  });

  it.each([400, 401, 403, 404, 409, 422, 501])('never repeats a %i', (status) => {
    expect(delay({ kind: 'answer', status }, 'repeatable')).toBeUndefined();
  });

  it('doubles the backoff per attempt, spread over its upper half and capped', () => {
    const outcome: AttemptOutcome = { kind: 'answer', status: 503 };
    expect(retryDelayMs(outcome, 'repeatable', 1, policy, top)).toBeCloseTo(250);
    expect(retryDelayMs(outcome, 'repeatable', 3, policy, bottom)).toBe(500);
    expect(retryDelayMs(outcome, 'repeatable', 3, { ...policy, maxAttempts: 10, maxDelayMs: 600 }, top)).toBeCloseTo(600);
  });

  it('gives up after maxAttempts', () => {
    expect(delay({ kind: 'answer', status: 503 }, 'repeatable', policy.maxAttempts)).toBeUndefined();
    expect(delay({ kind: 'answer', status: 429, retryAfterMs: 1 }, 'repeatable', policy.maxAttempts)).toBeUndefined();
  });
});
