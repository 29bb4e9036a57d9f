// What the report says of the machine's load: a summary for the run, and the load at the time of each violation, so
// that a timing finding on a full machine reads as what it is.
import { percentile } from '../invariants/index.ts';
import type { MachineLoadSample } from '../timeline.ts';

/** CPU busy at or above this share of every core's time counts as a saturated machine. */
export const SATURATED_CPU_PERCENT = 90;

/** A sample stands for the moments this close to it; further off, nothing is claimed of the machine. */
const SAMPLE_REACH_MS = 15_000;

export interface MachineLoadAt { cpuBusyPercent: number; load1: number; cores: number }

export interface MachineLoadSummary {
  cores: number;
  samples: number;
  /** Nearest-rank p50 and the highest sample. */
  cpuBusyPercent: { p50: number; max: number };
  load1: { p50: number; max: number };
  /** The share of samples at or above SATURATED_CPU_PERCENT. */
  saturatedSamplesPercent: number;
}

/** The machine as the sample nearest `at` saw it, if one is within reach. */
export function machineLoadAt(samples: readonly MachineLoadSample[], at: number): MachineLoadAt | undefined {
  let nearest: MachineLoadSample | undefined;
  for (const sample of samples) {
    if (Math.abs(sample.at - at) <= SAMPLE_REACH_MS && (nearest === undefined || Math.abs(sample.at - at) < Math.abs(nearest.at - at))) nearest = sample;
  }
  return nearest && { cpuBusyPercent: nearest.cpuBusyPercent, load1: nearest.load1, cores: nearest.cores };
}

/** The run's machine load in a few figures; undefined when it was not sampled. */
export function summarizeMachineLoad(samples: readonly MachineLoadSample[]): MachineLoadSummary | undefined {
  const last = samples.at(-1);
  if (last === undefined) return undefined;
  const busy = samples.map((sample) => sample.cpuBusyPercent);
  const load = samples.map((sample) => sample.load1);
  const saturated = busy.filter((percent) => percent >= SATURATED_CPU_PERCENT).length;
  return {
    cores: last.cores,
    samples: samples.length,
    cpuBusyPercent: { p50: percentile(busy, 50) ?? 0, max: Math.max(...busy) },
    load1: { p50: percentile(load, 50) ?? 0, max: Math.max(...load) },
    saturatedSamplesPercent: (100 * saturated) / samples.length,
  };
}
