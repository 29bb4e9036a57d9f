import type { TopLevelSpec } from 'vega-lite';

/** What a chart is when the run measured nothing for it: its title saying so, so the report still links a file. */
export function noDataChart(title: string): TopLevelSpec {
  return { title: `${title}: no data`, data: { values: [] }, mark: 'point' };
}
