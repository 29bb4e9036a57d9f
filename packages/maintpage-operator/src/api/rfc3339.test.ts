import { describe, expect, it } from 'vitest';
import { parseRfc3339 } from './rfc3339.ts';

describe('parseRfc3339', () => {
  it.each([
    ['2026-03-01T22:00:00Z', '2026-03-01T22:00:00.000Z'],
    ['2026-03-02T07:00:00+09:00', '2026-03-01T22:00:00.000Z'],
    ['2026-03-01T17:30:00-04:30', '2026-03-01T22:00:00.000Z'],
    ['2026-03-01T22:00:00.5Z', '2026-03-01T22:00:00.500Z'],
    ['2026-03-01T22:00:00.123456789Z', '2026-03-01T22:00:00.123Z'],
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    // Across a daylight-saving change in Europe (2026-03-29 01:00 UTC): offsets are explicit, so nothing shifts.
    ['2026-03-29T03:30:00+02:00', '2026-03-29T01:30:00.000Z'],
  ])('reads %s as %s', (text, instant) => {
    expect(parseRfc3339(text)).toBe(Date.parse(instant));
  });

  it.each([
    ['a local time without a zone', '2026-03-01T22:00:00'],
    ['a date only', '2026-03-01'],
    ['a space instead of T', '2026-03-01 22:00:00Z'],
    ['February 30', '2026-02-30T00:00:00Z'],
    ['February 29 of a common year', '2026-02-29T00:00:00Z'],
    ['hour 24', '2026-03-01T24:00:00Z'],
    ['an offset without a colon', '2026-03-01T22:00:00+0900'],
    ['an empty string', ''],
  ])('refuses %s', (_what, text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });
});
