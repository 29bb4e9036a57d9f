import { expect, test } from 'vitest';
import { parseDuration, parseSoakOptions } from './options.ts';

test('durations read as a person writes them', () => {
  expect(parseDuration('90s', '--x')).toBe(90_000);
  expect(parseDuration('10m', '--x')).toBe(600_000);
  expect(parseDuration('1h', '--x')).toBe(3_600_000);
  expect(parseDuration('5', '--x')).toBe(300_000);
  expect(() => parseDuration('ten minutes', '--duration')).toThrow('--duration must be a duration such as 90s, 10m or 1h, not "ten minutes"');
});

test('the defaults: an hour on the local cluster, a fresh seed, a report under soak-out/', () => {
  const options = parseSoakOptions([], new Date('2026-11-28T01:02:03.456Z'));
  expect(options).toMatchObject({ durationMs: 3_600_000, cluster: 'local', rate: 12, settleMs: 180_000 });
  expect(options.seed).toBeGreaterThan(0);
  expect(options.outDir).toMatch(/soak-out\/2026-11-28T01-02-03-456Z$/);
});

test('bad input says what to fix', () => {
  expect(() => parseSoakOptions(['--cluster', 'minikube'])).toThrow('--cluster must be local or kind, not "minikube"');
  expect(() => parseSoakOptions(['--seed=1.5'])).toThrow('--seed must be a whole number, not "1.5"');
  expect(() => parseSoakOptions(['--duration', '30s'])).toThrow('--duration must be at least 1m');
  expect(() => parseSoakOptions(['--rate', '0'])).toThrow('--rate must be between 1 and 120');
  expect(() => parseSoakOptions(['--colour'])).toThrow(/Unknown option '--colour'/);
});
