import { expect, test } from 'vitest';
import { countText, durationText, runText, timeText } from './evidence-text.ts';
import { HOUR, MINUTE, SECOND } from './test-timeline.ts';

test('times in UTC to the millisecond, durations in the units that keep them readable', () => {
  expect(timeText(Date.UTC(2025, 0, 2, 3, 4, 5, 600))).toBe('2025-01-02T03:04:05.600Z');
  expect([0, 850, 12_340, 4 * MINUTE + 5 * SECOND, 50 * MINUTE, 2 * HOUR + 7 * MINUTE, 3 * HOUR].map(durationText))
    .toEqual(['0 ms', '850 ms', '12.3 s', '4 min 5 s', '50 min', '2 h 7 min', '3 h']);
});

test('a run of one sighting, and of several', () => {
  expect(runText({ first: { at: 0 }, last: { at: 0 }, members: [{ at: 0 }] }, 'probe')).toBe('in 1 probe at 1970-01-01T00:00:00.000Z');
  expect(runText({ first: { at: 0 }, last: { at: 300 }, members: [{ at: 0 }, { at: 100 }, { at: 300 }] }, 'sample'))
    .toBe('in 3 samples from 1970-01-01T00:00:00.000Z to 1970-01-01T00:00:00.300Z (300 ms)');
});

test('a count of one is singular', () => {
  expect([0, 1, 2].map((count) => countText(count, 'row'))).toEqual(['0 rows', '1 row', '2 rows']);
});
