import type { TopLevelSpec } from 'vega-lite';
import type { FaultRecord, ProcessSample } from '../timeline.ts';
import { chartOverFaultStarts } from './fault-start-rules.ts';
import { noDataChart } from './no-data-chart.ts';
import { OPERATOR_COLOR } from './operator-color.ts';
import { MINUTES_SINCE_START_AXIS, minutesSinceStart } from './time-axis.ts';

const TITLE = 'Operator RSS (MiB)';

/**
 * Resident memory over time: one line per Pod, colored by its operator. A killed leader's replacement is a new
 * process that starts small, so one line per operator would draw a restart as a sudden drop and hide whether each
 * process grew; per Pod, each process's own growth shows, and the color still groups them by operator.
 */
export function rssChart(samples: readonly ProcessSample[], faults: readonly FaultRecord[], startedAt: number): TopLevelSpec {
  if (samples.length === 0) return noDataChart(TITLE);
  return chartOverFaultStarts({
    title: TITLE,
    height: 320,
    faults,
    startedAt,
    layers: [{
      data: { values: samples.map((sample) => ({ minutes: minutesSinceStart(startedAt, sample.at), rssMiB: sample.rssMiB, operator: sample.operator, pod: sample.pod })) },
      mark: 'line',
      encoding: {
        x: MINUTES_SINCE_START_AXIS,
        y: { field: 'rssMiB', type: 'quantitative', title: 'RSS (MiB)' },
        color: OPERATOR_COLOR,
        detail: { field: 'pod', type: 'nominal' },
      },
    }],
  });
}
