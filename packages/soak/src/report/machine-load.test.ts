import { describe, expect, it } from 'vitest';
import type { MachineLoadSample } from '../timeline.ts';
import { machineLoadAt, summarizeMachineLoad } from './machine-load.ts';

const sample = (at: number, cpuBusyPercent: number, load1: number): MachineLoadSample => ({ at, cpuBusyPercent, load1, cores: 2 });
const samples = [sample(0, 20, 0.5), sample(10_000, 95, 3.1), sample(20_000, 40, 1.2), sample(60_000, 92, 2.2)];

describe('the machine at the time of a finding', () => {
  it('is the nearest sample', () => {
    expect(machineLoadAt(samples, 12_000)).toEqual({ cpuBusyPercent: 95, load1: 3.1, cores: 2 });
    expect(machineLoadAt(samples, 17_000)).toEqual({ cpuBusyPercent: 40, load1: 1.2, cores: 2 });
  });

  it('is not claimed when no sample is within 15 s', () => {
    expect(machineLoadAt(samples, 40_000)).toBeUndefined();
    expect(machineLoadAt([], 0)).toBeUndefined();
  });
});

describe("the run's machine load", () => {
  it('in p50, max and the share of saturated samples (90 % busy or more)', () => {
    expect(summarizeMachineLoad(samples)).toEqual({ cores: 2, samples: 4, cpuBusyPercent: { p50: 40, max: 95 }, load1: { p50: 1.2, max: 3.1 }, saturatedSamplesPercent: 50 });
  });

  it('is not summarized when it was not sampled', () => {
    expect(summarizeMachineLoad([])).toBeUndefined();
  });
});
