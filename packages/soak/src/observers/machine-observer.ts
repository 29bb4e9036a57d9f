// The machine under the run, every 10 s: how busy its cores were and its load average. The cluster, the operators,
// Prometheus, the simulators and the soak itself share it, so a run on a machine that something else also loads
// (a test suite, a build) can slow every answer; the report shows the load beside each finding so the reader can
// tell an operator that was slow from a machine that was full.
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { repeat, sleep } from '../loop.ts';
import type { Recorder } from '../recorder.ts';

/** How often the machine is sampled: as often as the operators' processes are. */
const SAMPLE_INTERVAL_MS = 10_000;

/** The aggregate `cpu` line of /proc/stat: time every core spent, and how much of it idle (waiting for I/O included). */
export interface CpuTimes { total: number; idle: number }

/** Reads the `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal (guest time is inside user). */
export function parseCpuTimes(procStat: string): CpuTimes {
  const line = /^cpu\s+(.*)$/m.exec(procStat)?.[1];
  const fields = line?.trim().split(/\s+/).slice(0, 8).map(Number);
  if (fields === undefined || fields.length < 5 || fields.some((value) => !Number.isFinite(value))) {
    throw new Error(`/proc/stat has no aggregate cpu line: ${JSON.stringify(procStat.slice(0, 80))}`);
  }
  const [, , , idle = 0, iowait = 0] = fields;
  return { total: fields.reduce((sum, value) => sum + value, 0), idle: idle + iowait };
}

/** The share of core time spent busy between two readings, 0 to 100; 0 when no time passed between them. */
export function cpuBusyPercent(before: CpuTimes, after: CpuTimes): number {
  const total = after.total - before.total;
  if (total <= 0) return 0;
  return Math.min(100, Math.max(0, (100 * (total - (after.idle - before.idle))) / total));
}

/** The one-minute load average, the first field of /proc/loadavg. */
export function parseLoad1(procLoadavg: string): number {
  const load1 = Number(procLoadavg.trim().split(/\s+/)[0]);
  if (!Number.isFinite(load1)) throw new Error(`/proc/loadavg does not start with a load average: ${JSON.stringify(procLoadavg.slice(0, 40))}`);
  return load1;
}

/** Samples the machine into `recorder.machineLoad` until the signal aborts; the first sample comes one interval in. */
export async function observeMachine(recorder: Recorder, signal: AbortSignal, onError: (what: string, error: unknown) => void): Promise<void> {
  const cores = availableParallelism();
  let before = parseCpuTimes(await readFile('/proc/stat', 'utf8'));
  // A sample measures busy time over the interval before it, so the first comes one interval after the first reading.
  await sleep(SAMPLE_INTERVAL_MS, signal);
  await repeat(signal, SAMPLE_INTERVAL_MS, async () => {
    const [stat, loadavg] = await Promise.all([readFile('/proc/stat', 'utf8'), readFile('/proc/loadavg', 'utf8')]);
    const after = parseCpuTimes(stat);
    recorder.machineLoad.push({ at: Date.now(), load1: parseLoad1(loadavg), cores, cpuBusyPercent: cpuBusyPercent(before, after) });
    before = after;
  }, (error) => { onError('sampling the machine\'s load', error); });
}
