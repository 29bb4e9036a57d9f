/**
 * The nearest-rank percentile: the smallest value that at least p% of `values` are less than or equal to, i.e. the
 * value at rank ⌈p/100 × n⌉ (1-based) of the sorted values; p = 0 gives the smallest. It always is one of the
 * measured values, never an interpolation between two, so a reported p99 latency is one a probe really saw.
 * `undefined` when there are no values.
 */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be between 0 and 100, not ${p}`);
  const sorted = values.toSorted((a, b) => a - b);
  // p × n first, then ÷ 100: exact for whole percents, where p/100 × n can land just above a whole rank
  // (0.07 × 100 is 7.000000000000001) and pick the next value.
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[rank - 1];
}
