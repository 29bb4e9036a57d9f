// What the report writer is given: the run's recorded data and the invariant checkers' verdicts, already worked out.
// The writer only arranges and renders this; it decides nothing, so the report says exactly what the soak found.
import type { AlertFiring, FaultRecord, InvariantResult, MachineLoadSample, OperatorName, ProcessSample, QueueDepthSample } from '../timeline.ts';

/** One operator's resident memory over the run, as the leak check measured it. */
export interface RssTrend {
  startMiB: number;
  endMiB: number;
  slopeMiBPerHour: number;
  /** Whether the slope was held against the leak threshold (a span too short to tell a trend is not). */
  judged: boolean;
  /** The process (its container's ID) whose samples the slope was fitted to, and its Pod. */
  container: string;
  pod: string;
  /** How long the fitted samples span. */
  spanMinutes: number;
}

export interface SoakReportInput {
  seed: number;
  cluster: 'local' | 'kind';
  /** How to reproduce the run. */
  command: string;
  /** Times in milliseconds since the Unix epoch. */
  startedAt: number;
  /** When the workload and faults stopped and the settle began. */
  settleStartedAt: number;
  endedAt: number;
  faults: FaultRecord[];
  /** Every invariant checked; a counter's value is its violations.length. */
  invariants: InvariantResult[];
  rss: Partial<Record<OperatorName, RssTrend>>;
  processSamples: ProcessSample[];
  queueDepth: QueueDepthSample[];
  /** The machine's load over the run, shown beside each violation and in its own chart. */
  machineLoad: MachineLoadSample[];
  /** MaintPage switch latencies: from a wanted change to the Service serving what was wanted. */
  switchLatencyMs: { duringFaults: number[]; withoutFaults: number[] };
  /** Each alert that fired, with the faults beside it in time. */
  alerts: { firing: AlertFiring; faults: FaultRecord[] }[];
  /** Store objects that `Retain` keeps on purpose. */
  retainedObjects: string[];
  /** Counts of what the workload did, e.g. "maintpage toggles": 12. */
  workload: Record<string, number>;
  /** The RSS slope above which an operator counts as leaking. */
  leakSlopeMiBPerHour: number;
}
