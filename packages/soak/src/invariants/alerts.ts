// The shipped alerts against the faults the soak injected: every alert that fired is explained by a fault that can
// cause it, and every fault that should page someone did.
import type { AlertExpectation, AlertFiring, DisruptionKind, FaultKind, FaultRecord, InvariantResult, SoakTimeline } from '../timeline.ts';
import { durationText, timeText } from './evidence-text.ts';
import { invariantResult, type Finding } from './invariant-result.ts';

const MS_PER_MINUTE = 60_000;
/**
 * How long after a fault was lifted an alert it caused may still start firing: the rules' rates and increases look
 * back over windows of minutes, most of them 5 to 15.
 */
const AFTERMATH_MS = 15 * MS_PER_MINUTE;
/** Scrapes, rule evaluation and rate windows take a couple of minutes to see a fault at all, on top of `for:`. */
const DETECTION_MS = 2 * MS_PER_MINUTE;
/** How long after a fault was lifted the alert it should have raised is still accepted as raised by it. */
const LATE_FIRING_MS = 5 * MS_PER_MINUTE;

/**
 * alerts.unexplained: a firing with no expectation, or with no fault of a kind that explains it, injected before it
 * fired and lifted at most AFTERMATH_MS before its condition began to hold (forSeconds before it fired), nor a
 * workload disruption of such a kind in that span. The evidence quotes what the failed backup said, for a backup alert.
 */
export function checkUnexplainedAlerts(timeline: SoakTimeline): InvariantResult {
  return invariantResult('alerts.unexplained', timeline.alerts.flatMap((firing): Finding[] => {
    const expectation = timeline.alertExpectations.find((candidate) => candidate.alert === firing.alert);
    // A workload disruption is an instant cause, as a kill is: it began and ended at once.
    const causes = [...timeline.faults, ...timeline.disruptions.map(({ kind, at }) => ({ kind, startAt: at, endAt: at }))];
    if (expectation && causes.some((cause) => explains(cause, firing, expectation))) return [];
    const why = expectation
      ? `no fault or workload disruption of a kind that explains it (${expectation.explainedBy.join(', ') || 'none listed'}) happened before it `
        + `and ended less than ${durationText(AFTERMATH_MS)} before its condition held (for: ${expectation.forSeconds} s)`
      : 'the soak has no expectation for this alert: nothing it injects should raise it';
    return [{ at: firing.firstSeenAt, evidence: `${firingText(firing)}, unexplained: ${why}; ${failedBackupText(timeline, firing)}${nearestFaultsText(timeline.faults, firing.firstSeenAt)}` }];
  }));
}

/**
 * alerts.missing: a fault that outlasted an alert's `for:` (and the time to detect it) that the alert is expected
 * for, without a firing of it between `for:` after the fault began and LATE_FIRING_MS after it was lifted. A firing
 * that began earlier and was still going then counts too: the alert was already paging someone.
 */
export function checkMissingAlerts(timeline: SoakTimeline): InvariantResult {
  const findings: Finding[] = [];
  for (const fault of timeline.faults) {
    for (const expectation of timeline.alertExpectations) {
      const forMs = expectation.forSeconds * 1000;
      if (!expectation.expectedFor.includes(fault.kind) || fault.endAt - fault.startAt <= forMs + DETECTION_MS) continue;
      const from = fault.startAt + forMs;
      const until = fault.endAt + LATE_FIRING_MS;
      const firings = timeline.alerts.filter((firing) => firing.alert === expectation.alert);
      if (firings.some((firing) => firing.firstSeenAt <= until && firing.lastSeenAt >= from)) continue;
      findings.push({
        at: fault.startAt,
        evidence: `Alert ${expectation.alert} (for: ${expectation.forSeconds} s) did not fire for ${faultText(fault)}, which lasted `
          + `${durationText(fault.endAt - fault.startAt)}: it should have been firing between ${timeText(from)} and ${timeText(until)}; `
          + nearestFiringText(firings, fault.startAt),
      });
    }
  }
  return invariantResult('alerts.missing', findings);
}

export interface AlertBesideFaults {
  firing: AlertFiring;
  /** The faults that overlap the firing, or were lifted at most AFTERMATH_MS before it began. */
  faults: FaultRecord[];
}

/** For the report: each firing, in time order, with the faults beside it. */
export function alertsBesideFaults(timeline: SoakTimeline): AlertBesideFaults[] {
  return timeline.alerts.toSorted((a, b) => a.firstSeenAt - b.firstSeenAt).map((firing) => ({
    firing,
    faults: timeline.faults.filter((fault) => fault.startAt <= firing.lastSeenAt && fault.endAt + AFTERMATH_MS >= firing.firstSeenAt),
  }));
}

/** A fault or disruption of a kind that explains the alert, begun by its firing and ended at most AFTERMATH_MS before its condition held. */
function explains(cause: Pick<FaultRecord, 'startAt' | 'endAt'> & { kind: FaultKind | DisruptionKind }, firing: AlertFiring, expectation: AlertExpectation): boolean {
  const conditionHeldFrom = firing.firstSeenAt - expectation.forSeconds * 1000;
  return expectation.explainedBy.includes(cause.kind) && cause.startAt <= firing.firstSeenAt && cause.endAt + AFTERMATH_MS >= conditionHeldFrom;
}

/** The error of the last backup of the alert's database that failed by the time it fired: where on-call starts. */
function failedBackupText(timeline: SoakTimeline, firing: AlertFiring): string {
  const db = firing.labels.postgresql;
  if (db === undefined) return '';
  const failed = timeline.backups.filter((backup) => backup.db === db && backup.phase === 'Failed' && (backup.completedAt ?? Infinity) <= firing.firstSeenAt)
    .toSorted((a, b) => (a.completedAt ?? 0) - (b.completedAt ?? 0)).at(-1);
  return failed === undefined ? '' : `backup ${failed.name} failed: ${failed.error ?? 'no error in its status'}; `;
}

function firingText(firing: AlertFiring): string {
  const labels = Object.entries(firing.labels).map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(', ');
  return `Alert ${firing.alert}{${labels}} fired from ${timeText(firing.firstSeenAt)} to ${timeText(firing.lastSeenAt)}`;
}

function faultText(fault: FaultRecord): string {
  const when = fault.endAt === fault.startAt ? `at ${timeText(fault.startAt)}` : `from ${timeText(fault.startAt)} to ${timeText(fault.endAt)}`;
  return `fault ${fault.id} (${fault.kind} on ${fault.target}, ${when})`;
}

/** The last fault that began by `at` and the first that began after it: where an on-call engineer looks first. */
function nearestFaultsText(faults: readonly FaultRecord[], at: number): string {
  const sorted = faults.toSorted((a, b) => a.startAt - b.startAt);
  const before = sorted.findLast((fault) => fault.startAt <= at);
  const after = sorted.find((fault) => fault.startAt > at);
  if (!before && !after) return 'no fault was injected in the run';
  const nearest = [
    ...(before ? [`${faultText(before)}, begun ${durationText(at - before.startAt)} before`] : []),
    ...(after ? [`${faultText(after)}, begun ${durationText(after.startAt - at)} after`] : []),
  ];
  return `nearest faults: ${nearest.join('; ')}`;
}

function nearestFiringText(firings: readonly AlertFiring[], at: number): string {
  const nearest = firings.toSorted((a, b) => Math.abs(a.firstSeenAt - at) - Math.abs(b.firstSeenAt - at))[0];
  if (!nearest) return 'it never fired in the run';
  const offset = nearest.firstSeenAt - at;
  return `its nearest firing began ${durationText(Math.abs(offset))} ${offset < 0 ? 'before' : 'after'} the fault began`;
}
