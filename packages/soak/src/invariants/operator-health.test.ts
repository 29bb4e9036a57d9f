import { describe, expect, test } from 'vitest';
import { checkCrashes, checkQueueNotEmpty, checkStaleObservedGeneration, checkStuckFinalizers, checkUncheckable } from './operator-health.ts';
import { emptyTimeline, HOUR, MINUTE } from './test-timeline.ts';

const SETTLE = 'settle (10 min from 1970-01-01T00:50:00.000Z)';
const settled = { settleStartedAt: 50 * MINUTE, endedAt: HOUR };

test('a run with only injected crashes and a clean settle breaks none of them', () => {
  const timeline = emptyTimeline({ crashes: [{ operator: 'postgresql-operator', pod: 'pg-op-1', at: MINUTE, reason: 'SIGKILL', injected: true }] });
  expect([checkCrashes, checkQueueNotEmpty, checkStuckFinalizers, checkStaleObservedGeneration].map((check) => check(timeline)))
    .toEqual(['operators.crashes', 'operators.queueNotEmpty', 'operators.stuckFinalizers', 'operators.staleObservedGeneration'].map((invariant) => ({ invariant, violations: [] })));
});

describe('operators.crashes', () => {
  test('every crash nothing injected', () => {
    const timeline = emptyTimeline({
      crashes: [
        { operator: 'postgresql-operator', pod: 'pg-op-1', at: MINUTE, reason: 'SIGKILL', injected: true },
        { operator: 'maintpage-operator', pod: 'mp-op-0', at: 2 * MINUTE, reason: 'unhandled rejection: TypeError: x is undefined', injected: false },
      ],
    });
    expect(checkCrashes(timeline).violations).toEqual([{
      invariant: 'operators.crashes',
      at: 2 * MINUTE,
      evidence: 'maintpage-operator pod mp-op-0 crashed at 1970-01-01T00:02:00.000Z with no fault injected: unhandled rejection: TypeError: x is undefined',
    }]);
  });

  test('with what the ended container logged last, or why that could not be read', () => {
    const restarted = { operator: 'maintpage-operator', pod: 'mp-op-0', at: 2 * MINUTE, reason: 'container manager restarted (count 2): exit code 1, Error', injected: false } as const;
    const timeline = emptyTimeline({
      crashes: [
        { ...restarted, lastLog: { lines: ['manager stopped with an error: leader election lost'] } },
        { ...restarted, lastLog: { lines: ['renewing the lease failed: connect ECONNREFUSED', 'closing'] } },
        { ...restarted, lastLog: { unreadable: 'previous terminated container "manager" in pod "mp-op-0" not found' } },
        { ...restarted, lastLog: { lines: [] } },
      ],
    });
    const crashed = 'maintpage-operator pod mp-op-0 crashed at 1970-01-01T00:02:00.000Z with no fault injected: container manager restarted (count 2): exit code 1, Error';
    expect(checkCrashes(timeline).violations.map((violation) => violation.evidence)).toEqual([
      `${crashed}; its last log: manager stopped with an error: leader election lost`,
      `${crashed}; its last log: renewing the lease failed: connect ECONNREFUSED | closing`,
      `${crashed}; its log could not be read: previous terminated container "manager" in pod "mp-op-0" not found`,
      `${crashed}; its log showed nothing from before it ended`,
    ]);
  });
});

describe('after the settle', () => {
  test('a work queue not drained, per operator', () => {
    const timeline = emptyTimeline({ ...settled, settle: { queueDepth: { 'maintpage-operator': 0, 'postgresql-operator': 2, 'nutanix-ahvvm-operator': 5 }, stuckFinalizers: [], staleObservedGeneration: [], uncheckable: [] } });
    expect(checkQueueNotEmpty(timeline).violations.map((violation) => [violation.at, violation.evidence])).toEqual([
      [HOUR, `postgresql-operator's work queue still held 2 items after the ${SETTLE}`],
      [HOUR, `nutanix-ahvvm-operator's work queue still held 5 items after the ${SETTLE}`],
    ]);
  });

  test('each stuck finalizer and each stale observedGeneration', () => {
    const timeline = emptyTimeline({
      ...settled,
      settle: {
        queueDepth: { 'maintpage-operator': 0, 'postgresql-operator': 0, 'nutanix-ahvvm-operator': 0 },
        stuckFinalizers: ['AhvVm/shop/web-1', 'PostgreSQL/shop/orders'],
        staleObservedGeneration: ['MaintPage/shop/front'],
        uncheckable: [],
      },
    });
    expect(checkStuckFinalizers(timeline).violations.map((violation) => violation.evidence)).toEqual([
      `AhvVm/shop/web-1 still existed with a deletionTimestamp after the ${SETTLE}: a finalizer was never removed`,
      `PostgreSQL/shop/orders still existed with a deletionTimestamp after the ${SETTLE}: a finalizer was never removed`,
    ]);
    expect(checkStaleObservedGeneration(timeline).violations).toEqual([{
      invariant: 'operators.staleObservedGeneration',
      at: HOUR,
      evidence: `MaintPage/shop/front's status.observedGeneration was not its metadata.generation after the ${SETTLE}: its latest spec was never reconciled, or its status never written`,
    }]);
  });
});

test('soak.uncheckable: what the settle could not look at is a violation, never a pass', () => {
  const clean = emptyTimeline();
  expect(checkUncheckable(clean).violations).toEqual([]);
  const result = checkUncheckable(emptyTimeline({ settle: { ...clean.settle, uncheckable: ['the backup volume (listing it printed: find: ./x: Permission denied)'] } }));
  expect(result.invariant).toBe('soak.uncheckable');
  expect(result.violations.map((v) => v.evidence)).toEqual([expect.stringContaining('the soak could not check the backup volume (listing it printed: find: ./x: Permission denied)')]);
});
