import type { TopLevelSpec } from 'vega-lite';
import type { FaultRecord, QueueDepthSample } from '../timeline.ts';
import { chartOverFaultStarts } from './fault-start-rules.ts';
import { noDataChart } from './no-data-chart.ts';
import { OPERATOR_COLOR } from './operator-color.ts';
import { MINUTES_SINCE_START_AXIS, minutesSinceStart } from './time-axis.ts';

const TITLE = 'Work queue depth';

/** Each operator's work queue depth over time, with the faults' starts: a queue that drains after each fault is healthy. */
export function queueDepthChart(samples: readonly QueueDepthSample[], faults: readonly FaultRecord[], startedAt: number): TopLevelSpec {
  if (samples.length === 0) return noDataChart(TITLE);
  return chartOverFaultStarts({
    title: TITLE,
    height: 240,
    faults,
    startedAt,
    layers: [{
      data: { values: samples.map((sample) => ({ minutes: minutesSinceStart(startedAt, sample.at), depth: sample.depth, operator: sample.operator })) },
      // A sampled gauge holds its value until the next sample; a slope between samples would invent values.
      mark: { type: 'line', interpolate: 'step-after' },
      encoding: {
        x: MINUTES_SINCE_START_AXIS,
        y: { field: 'depth', type: 'quantitative', title: 'items queued' },
        color: OPERATOR_COLOR,
      },
    }],
  });
}
