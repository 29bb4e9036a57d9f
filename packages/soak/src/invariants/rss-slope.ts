// operators.memoryLeak, from each operator's resident memory over the run.
//
// Only one process's samples: faults kill operator containers, and a restarted process's RSS starts over, so a slope
// is meaningful only within one process's life. A killed container is restarted in the same Pod, so a process is told
// by its container's ID, not by its Pod. And only its samples after its warm-up, as long as the run's: caches fill
// and V8 sizes its heap after the process starts, and again after it takes the lead (a follower watches nothing; the
// PostgreSQL operator's RSS steps up some 20 MiB when it takes over), and a step drawn into a line reads as a leak.
// Of an operator's processes, the one whose warm samples span longest is used. Its slope is the least-squares fit of
// rssMiB against time, which a garbage collector's sawtooth moves far less than the first and last samples alone
// would.
import { OPERATORS, type InvariantResult, type OperatorName, type ProcessSample, type SoakTimeline } from '../timeline.ts';
import { durationText, timeText } from './evidence-text.ts';
import { invariantResult } from './invariant-result.ts';

/**
 * The maintpage and Nutanix operators' Deployments are limited to 256 MiB, with about 100 MiB resident at rest:
 * growing 8 MiB an hour reaches the limit in under a day, a daily OOM-kill in production. (The PostgreSQL operator's
 * 512 MiB leaves room for the pg_restore it runs beside itself, not for the operator to grow into.)
 */
export const LEAK_SLOPE_MIB_PER_HOUR = 8;

/** Over a shorter life, the heap's growth between garbage collections can pass for a trend. */
const MIN_JUDGED_SPAN_MINUTES = 20;

const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 60 * MS_PER_MINUTE;

export interface RssSlope {
  operator: OperatorName;
  /** The process (container) whose samples after its warm-up span longest, and its Pod. */
  container: string;
  pod: string;
  /** When its first sample after its warm-up was taken. */
  startAt: number;
  /** Its first and last sample after its warm-up. */
  startMiB: number;
  endMiB: number;
  slopeMiBPerHour: number;
  spanMinutes: number;
  /** Whether the span is long enough for the slope to mean anything. */
  judged: boolean;
}

/** One slope per operator with a process sampled after its warm-up, in OPERATORS order. */
export function rssSlopes(timeline: SoakTimeline): RssSlope[] {
  return OPERATORS.flatMap((operator) => {
    const samples = longestWarmProcessSamples(timeline.processSamples.filter((sample) => sample.operator === operator), timeline);
    const first = samples[0];
    const last = samples.at(-1);
    if (!first || !last) return [];
    const spanMinutes = (last.at - first.at) / MS_PER_MINUTE;
    return [{
      operator,
      container: first.container,
      pod: first.pod,
      startAt: first.at,
      startMiB: first.rssMiB,
      endMiB: last.rssMiB,
      slopeMiBPerHour: leastSquaresSlope(samples.map((sample) => ({ x: (sample.at - first.at) / MS_PER_HOUR, y: sample.rssMiB }))),
      spanMinutes,
      judged: spanMinutes >= MIN_JUDGED_SPAN_MINUTES,
    }];
  });
}

/** operators.memoryLeak: a judged slope above LEAK_SLOPE_MIB_PER_HOUR. */
export function checkMemoryLeak(timeline: SoakTimeline): InvariantResult {
  return invariantResult('operators.memoryLeak', rssSlopes(timeline)
    .filter((slope) => slope.judged && slope.slopeMiBPerHour > LEAK_SLOPE_MIB_PER_HOUR)
    .map((slope) => ({
      at: slope.startAt,
      evidence: `${slope.operator} pod ${slope.pod} (container ${slope.container}) grew ${slope.slopeMiBPerHour.toFixed(1)} MiB/h by least squares (more than `
        + `${LEAK_SLOPE_MIB_PER_HOUR} MiB/h is a leak): from ${slope.startMiB.toFixed(1)} MiB at ${timeText(slope.startAt)} `
        + `to ${slope.endMiB.toFixed(1)} MiB ${durationText(slope.spanMinutes * MS_PER_MINUTE)} later`,
    })));
}

/** Of the processes' samples after each one's warm-up, the longest-spanning set, in time order. */
function longestWarmProcessSamples(samples: readonly ProcessSample[], timeline: Pick<SoakTimeline, 'startedAt' | 'warmupEndsAt'>): ProcessSample[] {
  let longest: ProcessSample[] = [];
  let longestSpan = -1;
  for (const processSamples of Map.groupBy(samples, (sample) => sample.container).values()) {
    const warm = samplesAfterWarmup(processSamples.toSorted((a, b) => a.at - b.at), timeline);
    const span = (warm.at(-1)?.at ?? 0) - (warm[0]?.at ?? 0);
    if (warm.length > 0 && span > longestSpan) {
      longest = warm;
      longestSpan = span;
    }
  }
  return longest;
}

/**
 * One process's samples (in time order) from the later of the run's warm-up end and a warm-up's length after the
 * process's first sample leading, or its first sample if it never led: a process cannot lead before it started.
 */
function samplesAfterWarmup(samples: readonly ProcessSample[], { startedAt, warmupEndsAt }: Pick<SoakTimeline, 'startedAt' | 'warmupEndsAt'>): ProcessSample[] {
  const tookLeadAt = (samples.find((sample) => sample.leader) ?? samples[0])?.at ?? 0;
  const warmFrom = Math.max(warmupEndsAt, tookLeadAt + (warmupEndsAt - startedAt));
  return samples.filter((sample) => sample.at >= warmFrom);
}

/** The slope of the least-squares line through the points; 0 when they all share one x. */
function leastSquaresSlope(points: readonly { x: number; y: number }[]): number {
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / points.length;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / points.length;
  let covariance = 0;
  let variance = 0;
  for (const { x, y } of points) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return variance === 0 ? 0 : covariance / variance;
}
