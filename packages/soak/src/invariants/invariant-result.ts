import type { InvariantResult, Violation } from '../timeline.ts';

/** A violation as a checker finds it, before it carries its invariant's name. */
export type Finding = Omit<Violation, 'invariant'>;

/** One invariant's verdict, its violations in time order so that the report reads in the order the run went. */
export function invariantResult(invariant: string, findings: readonly Finding[]): InvariantResult {
  return {
    invariant,
    violations: findings.map(({ at, evidence }) => ({ invariant, at, evidence })).sort((a, b) => a.at - b.at),
  };
}
