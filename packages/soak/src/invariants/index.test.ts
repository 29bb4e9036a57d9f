import { expect, test } from 'vitest';
import { checkAllInvariants, INVARIANT_NAMES } from './index.ts';
import { emptyTimeline, MINUTE } from './test-timeline.ts';

test('an empty run reports every invariant, in order, each at zero', () => {
  const results = checkAllInvariants(emptyTimeline());
  expect(results.map((result) => result.invariant)).toEqual(INVARIANT_NAMES);
  expect(results.every((result) => result.violations.length === 0)).toBe(true);
  expect(new Set(INVARIANT_NAMES).size).toBe(INVARIANT_NAMES.length);
});

test('each violation is counted under the invariant whose result holds it', () => {
  const timeline = emptyTimeline({
    crashes: [{ operator: 'maintpage-operator', pod: 'mp-op-0', at: MINUTE, reason: 'exit 1', injected: false }],
    stores: { objects: [{ store: 'bucket', key: 'stray' }], incompleteUploads: ['half'], liveBackups: [], retainedOnPurpose: [] },
  });
  const counts = Object.fromEntries(checkAllInvariants(timeline).map((result) => [result.invariant, result.violations.length]));
  expect(counts).toMatchObject({ 'operators.crashes': 1, 'postgresql.orphanObjects': 1, 'postgresql.incompleteUploads': 1, 'alerts.missing': 0 });
  for (const result of checkAllInvariants(timeline)) {
    for (const violation of result.violations) expect(violation.invariant).toBe(result.invariant);
  }
});
