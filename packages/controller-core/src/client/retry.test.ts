import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry.ts';

describe('parseRetryAfter (RFC 9110 §10.2.3)', () => {
  const now = Date.UTC(2025, 5, 7, 18, 0, 0);

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('2', now)).toBe(2);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(['120', '5'], now)).toBe(120);
  });

  it('reads each form of HTTP-date as the seconds left until it, 0 once it has passed', () => {
    expect(parseRetryAfter('Sat, 07 Jun 2025 18:00:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('Saturday, 07-Jun-25 18:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('Sat Jun  7 18:00:30 2025', now)).toBe(30);
    expect(parseRetryAfter('Sat, 07 Jun 2025 17:00:00 GMT', now)).toBe(0);
    // A fraction of a second left is waited out in full.
    expect(parseRetryAfter('Sat, 07 Jun 2025 18:00:01 GMT', now - 400)).toBe(2);
  });

  it('ignores a missing, negative or unreadable header', () => {
    for (const header of [undefined, '', 'soon', '-5', '1.5', '1e3', '2025-06-07T18:00:05Z', 'Sat, 07 Jun 2025 18:00:05', 'Sat, 32 Jun 2025 18:00:05 GMT']) {
      expect(parseRetryAfter(header, now), String(header)).toBeUndefined();
    }
  });
});
