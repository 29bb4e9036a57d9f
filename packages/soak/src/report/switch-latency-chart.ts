import type { TopLevelSpec } from 'vega-lite';
import { noDataChart } from './no-data-chart.ts';

const TITLE = 'MaintPage switch latency (ms)';

/**
 * Every MaintPage switch's latency as a tick, one row during faults and one without: a strip plot rather than a box
 * plot, because vega-lite's box plot interpolates its quartiles while the report's p50/p99 are nearest-rank, and
 * the ticks show the outliers a p99 is made of.
 */
export function switchLatencyChart(latencies: { duringFaults: readonly number[]; withoutFaults: readonly number[] }): TopLevelSpec {
  if (latencies.duringFaults.length + latencies.withoutFaults.length === 0) return noDataChart(TITLE);
  // The count is part of the row's name, so that a row with no switches is still drawn and says so.
  const during = `during faults (n = ${latencies.duringFaults.length})`;
  const without = `without faults (n = ${latencies.withoutFaults.length})`;
  return {
    title: TITLE,
    width: 720,
    height: { step: 40 },
    data: {
      values: [
        ...latencies.duringFaults.map((ms) => ({ when: during, ms })),
        ...latencies.withoutFaults.map((ms) => ({ when: without, ms })),
      ],
    },
    mark: { type: 'tick', opacity: 0.6 },
    encoding: {
      x: { field: 'ms', type: 'quantitative', title: 'from wanted change to served (ms)' },
      y: { field: 'when', type: 'nominal', title: null, scale: { domain: [during, without] } },
    },
  };
}
