/**
 * The nearest-rank percentile: the smallest value such that at least `p` percent of the values are at or below it,
 * that is the value at rank ceil(p/100 × n) of the sorted values. It is always a latency that was actually measured,
 * never an interpolation between two, so a p99 can be found in the raw data. `undefined` when there are no values.
 */
export function nearestRankPercentile(values: readonly number[], p: number): number | undefined {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const sorted = values.toSorted((a, b) => a - b);
  // p × n first, then ÷ 100: for whole percents that is exact, where p/100 × n can land just above a whole rank
  // (0.07 × 100 is 7.000000000000001) and pick the next value.
  const rank = Math.ceil((p * sorted.length) / 100);
  return sorted[rank - 1];
}
