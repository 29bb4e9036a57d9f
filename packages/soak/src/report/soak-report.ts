// The report's content, as soak-report.json holds it for machines. The markdown is rendered from this same object,
// so what people read and what a pipeline checks cannot disagree. Times are ISO 8601 (UTC); durations in seconds.
import { percentile } from '../invariants/index.ts';
import { FAULT_KINDS, OPERATORS, type FaultKind, type OperatorName } from '../timeline.ts';
import { machineLoadAt, summarizeMachineLoad, type MachineLoadAt, type MachineLoadSummary } from './machine-load.ts';
import type { SoakReportInput } from './report-input.ts';

export interface ScheduledFault { id: string; kind: FaultKind; target: string; startAt: string; endAt: string; detail: string }

/** Nearest-rank percentiles (see invariants/percentile.ts); null when nothing was measured. */
export interface LatencySummary { p50: number | null; p99: number | null; count: number }

export interface SoakReport {
  seed: number;
  cluster: 'local' | 'kind';
  command: string;
  /** True if and only if every invariant's counter is 0. */
  passed: boolean;
  startedAt: string;
  settleStartedAt: string;
  endedAt: string;
  /** Under workload and faults: from the start to the settle. */
  durationSeconds: number;
  settleSeconds: number;
  /** Faults injected, by kind; every kind the injector knows is present, 0 for those not injected. */
  faults: Record<FaultKind, number>;
  faultSchedule: ScheduledFault[];
  /** Every invariant checked, with its count of violations. */
  invariants: Record<string, number>;
  /** Every violation, in time order, with the machine's load then where it was sampled. */
  violations: { invariant: string; at: string; evidence: string; machine?: MachineLoadAt }[];
  /** Alerts that fired, with the ids of the faults beside each. */
  alerts: { alert: string; labels: Record<string, string>; firstSeenAt: string; lastSeenAt: string; faults: string[] }[];
  rssLeakThresholdMiBPerHour: number;
  rssMiB: Partial<Record<OperatorName, { start: number; end: number; slopePerHour: number; judged: boolean; pod: string; container: string; spanMinutes: number }>>;
  switchLatencyMs: { duringFaults: LatencySummary; withoutFaults: LatencySummary };
  /** The machine the run shared with the cluster; null when it was not sampled. */
  machineLoad: MachineLoadSummary | null;
  workload: Record<string, number>;
  retainedObjects: string[];
}

const iso = (at: number): string => new Date(at).toISOString();

function summarizeLatencies(values: readonly number[]): LatencySummary {
  return { p50: percentile(values, 50) ?? null, p99: percentile(values, 99) ?? null, count: values.length };
}

function countByKind(input: SoakReportInput): Record<FaultKind, number> {
  const counts = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  for (const fault of input.faults) counts[fault.kind] += 1;
  return counts;
}

export function buildSoakReport(input: SoakReportInput): SoakReport {
  const invariants = Object.fromEntries(input.invariants.map((result) => [result.invariant, result.violations.length]));
  const violations = input.invariants
    .flatMap((result) => result.violations)
    .sort((a, b) => a.at - b.at)
    .map((violation) => {
      const machine = machineLoadAt(input.machineLoad, violation.at);
      return { invariant: violation.invariant, at: iso(violation.at), evidence: violation.evidence, ...(machine && { machine }) };
    });
  const rssMiB: SoakReport['rssMiB'] = {};
  for (const operator of OPERATORS) {
    const trend = input.rss[operator];
    if (trend) rssMiB[operator] = { start: trend.startMiB, end: trend.endMiB, slopePerHour: trend.slopeMiBPerHour, judged: trend.judged, pod: trend.pod, container: trend.container, spanMinutes: trend.spanMinutes };
  }
  return {
    seed: input.seed,
    cluster: input.cluster,
    command: input.command,
    passed: Object.values(invariants).every((count) => count === 0),
    startedAt: iso(input.startedAt),
    settleStartedAt: iso(input.settleStartedAt),
    endedAt: iso(input.endedAt),
    durationSeconds: (input.settleStartedAt - input.startedAt) / 1000,
    settleSeconds: (input.endedAt - input.settleStartedAt) / 1000,
    faults: countByKind(input),
    faultSchedule: input.faults
      .toSorted((a, b) => a.startAt - b.startAt)
      .map((fault) => ({ id: fault.id, kind: fault.kind, target: fault.target, startAt: iso(fault.startAt), endAt: iso(fault.endAt), detail: fault.detail })),
    invariants,
    violations,
    alerts: input.alerts.map(({ firing, faults }) => ({
      alert: firing.alert,
      labels: firing.labels,
      firstSeenAt: iso(firing.firstSeenAt),
      lastSeenAt: iso(firing.lastSeenAt),
      faults: faults.map((fault) => fault.id),
    })),
    rssLeakThresholdMiBPerHour: input.leakSlopeMiBPerHour,
    rssMiB,
    switchLatencyMs: { duringFaults: summarizeLatencies(input.switchLatencyMs.duringFaults), withoutFaults: summarizeLatencies(input.switchLatencyMs.withoutFaults) },
    machineLoad: summarizeMachineLoad(input.machineLoad) ?? null,
    workload: input.workload,
    retainedObjects: input.retainedObjects,
  };
}
