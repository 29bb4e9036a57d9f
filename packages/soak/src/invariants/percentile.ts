/**
 * The nearest-rank percentile: the smallest value that at least p% of `values` are less than or equal to, i.e. the
 * value at rank ⌈p/100 × n⌉ (1-based) of the sorted values; p = 0 gives the smallest. It always is one of the
 * measured values, never an interpolation between two, so a reported p99 latency is one a probe really saw.
 * `undefined` when there are no values.
 */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be between 0 and 100, not ${p}`);
  const sorted = values.toSorted((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}
