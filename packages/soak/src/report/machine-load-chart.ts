import type { TopLevelSpec } from 'vega-lite';
import type { FaultRecord, MachineLoadSample } from '../timeline.ts';
import { chartOverFaultStarts } from './fault-start-rules.ts';
import { SATURATED_CPU_PERCENT } from './machine-load.ts';
import { noDataChart } from './no-data-chart.ts';
import { MINUTES_SINCE_START_AXIS, minutesSinceStart } from './time-axis.ts';

const TITLE = 'Machine load (% of all cores)';

/**
 * How busy the machine was over time, with the faults' starts: the cores' busy time, and the one-minute load average
 * per core on the same scale (100 % is one runnable task per core; above it, work waits). A rise in the other charts
 * that lines up with a full machine is the machine's, not an operator's.
 */
export function machineLoadChart(samples: readonly MachineLoadSample[], faults: readonly FaultRecord[], startedAt: number): TopLevelSpec {
  if (samples.length === 0) return noDataChart(TITLE);
  return chartOverFaultStarts({
    title: TITLE,
    height: 240,
    faults,
    startedAt,
    layers: [
      {
        data: { values: [{ percent: SATURATED_CPU_PERCENT }] },
        mark: { type: 'rule', color: '#999999', strokeDash: [2, 2] },
        encoding: { y: { field: 'percent', type: 'quantitative' } },
      },
      {
        data: {
          values: samples.flatMap((sample) => {
            const minutes = minutesSinceStart(startedAt, sample.at);
            return [
              { minutes, percent: sample.cpuBusyPercent, measure: 'CPU busy' },
              { minutes, percent: (100 * sample.load1) / sample.cores, measure: 'load average per core' },
            ];
          }),
        },
        mark: 'line',
        encoding: {
          x: MINUTES_SINCE_START_AXIS,
          y: { field: 'percent', type: 'quantitative', title: '% of all cores' },
          color: { field: 'measure', type: 'nominal', title: 'measure', scale: { domain: ['CPU busy', 'load average per core'], range: ['#222222', '#b00060'] } },
        },
      },
    ],
  });
}
