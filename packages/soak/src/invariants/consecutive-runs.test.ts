import { expect, test } from 'vitest';
import { consecutiveRuns, type RunRole } from './consecutive-runs.ts';

test('members group until an item breaks the run; items that pass neither join nor end it', () => {
  const roles: RunRole[] = ['member', 'member', 'breaks', 'passes', 'member', 'passes', 'member', 'breaks', 'breaks', 'member'];
  const runs = consecutiveRuns(roles.map((role, index) => ({ role, index })), (item) => item.role);
  expect(runs.map((run) => run.members.map((item) => item.index))).toEqual([[0, 1], [4, 6], [9]]);
  expect(runs.map((run) => [run.first.index, run.last.index])).toEqual([[0, 1], [4, 6], [9, 9]]);
  expect(consecutiveRuns([], () => 'member')).toEqual([]);
});
