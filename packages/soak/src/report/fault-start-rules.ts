import type { TopLevelSpec } from 'vega-lite';
import { FAULT_KINDS, type FaultRecord } from '../timeline.ts';
import { MINUTES_SINCE_START_AXIS, minutesSinceStart } from './time-axis.ts';

/** A layer of a layered chart (vega-lite exports the top-level spec type only). */
export type ChartLayer = Extract<TopLevelSpec, { layer: unknown }>['layer'][number];

/**
 * A vertical rule at each fault's start, colored by fault kind, to lay over a time chart so that a rise can be read
 * against what was done at the time. None when no fault was injected, so that no empty fault legend is drawn. The
 * color domain is the kinds injected in FAULT_KINDS' order: every chart of one report colors a kind the same.
 */
export function faultStartRules(faults: readonly FaultRecord[], startedAt: number): ChartLayer[] {
  if (faults.length === 0) return [];
  const kinds = FAULT_KINDS.filter((kind) => faults.some((fault) => fault.kind === kind));
  return [{
    data: { values: faults.map((fault) => ({ minutes: minutesSinceStart(startedAt, fault.startAt), kind: fault.kind })) },
    mark: { type: 'rule', strokeWidth: 1.5, strokeDash: [4, 3] },
    encoding: {
      x: MINUTES_SINCE_START_AXIS,
      color: { field: 'kind', type: 'nominal', title: 'fault started', scale: { domain: kinds, scheme: 'tableau20' } },
    },
  }];
}

/**
 * A time chart of the run: `layers` drawn over the faults' starts (the faults first, so the measurements lie on top),
 * each keeping its own color legend.
 */
export function chartOverFaultStarts(chart: { title: string; height: number; faults: readonly FaultRecord[]; startedAt: number; layers: ChartLayer[] }): TopLevelSpec {
  return {
    title: chart.title,
    width: 720,
    height: chart.height,
    layer: [...faultStartRules(chart.faults, chart.startedAt), ...chart.layers],
    resolve: { scale: { color: 'independent' } },
  };
}
