// Each operator survives the run on its own terms: nothing ends it but an injected fault, and after the settle it has
// caught up with everything (an empty work queue, no finalizer left hanging, every status current).
import { OPERATORS, type CrashRecord, type InvariantResult, type SoakTimeline } from '../timeline.ts';
import { durationText, timeText } from './evidence-text.ts';
import { invariantResult } from './invariant-result.ts';

/**
 * operators.crashes: a container that ended, or an unhandled error logged, with no fault injected to cause it. The
 * evidence quotes what the ended container logged last, so that it says why.
 */
export function checkCrashes(timeline: SoakTimeline): InvariantResult {
  return invariantResult('operators.crashes', timeline.crashes.filter((crash) => !crash.injected).map((crash) => ({
    at: crash.at,
    evidence: `${crash.operator} pod ${crash.pod} crashed at ${timeText(crash.at)} with no fault injected: ${crash.reason}${lastLogText(crash.lastLog)}`,
  })));
}

/** Nothing for a crash recorded without its log (timelines from before it was read). */
function lastLogText(lastLog: CrashRecord['lastLog']): string {
  if (lastLog === undefined) return '';
  if ('unreadable' in lastLog) return `; its log could not be read: ${lastLog.unreadable}`;
  if (lastLog.lines.length === 0) return '; its log showed nothing from before it ended';
  return `; its last log: ${lastLog.lines.join(' | ')}`;
}

/** operators.queueNotEmpty: an operator's work queue still held items after the settle. */
export function checkQueueNotEmpty(timeline: SoakTimeline): InvariantResult {
  return invariantResult('operators.queueNotEmpty', OPERATORS.filter((operator) => timeline.settle.queueDepth[operator] > 0).map((operator) => ({
    at: timeline.endedAt,
    evidence: `${operator}'s work queue still held ${timeline.settle.queueDepth[operator]} items after the ${settleText(timeline)}`,
  })));
}

/** soak.uncheckable: something the settle could not look at; a run cannot pass on what it did not see. */
export function checkUncheckable(timeline: SoakTimeline): InvariantResult {
  return invariantResult('soak.uncheckable', timeline.settle.uncheckable.map((what) => ({
    at: timeline.endedAt,
    evidence: `after the ${settleText(timeline)} the soak could not check ${what}`,
  })));
}

/** operators.stuckFinalizers: an object being deleted still existed after the settle. */
export function checkStuckFinalizers(timeline: SoakTimeline): InvariantResult {
  return invariantResult('operators.stuckFinalizers', timeline.settle.stuckFinalizers.map((object) => ({
    at: timeline.endedAt,
    evidence: `${object} still existed with a deletionTimestamp after the ${settleText(timeline)}: a finalizer was never removed`,
  })));
}

/** operators.staleObservedGeneration: an object's status did not reflect its latest spec after the settle. */
export function checkStaleObservedGeneration(timeline: SoakTimeline): InvariantResult {
  return invariantResult('operators.staleObservedGeneration', timeline.settle.staleObservedGeneration.map((object) => ({
    at: timeline.endedAt,
    evidence: `${object}'s status.observedGeneration was not its metadata.generation after the ${settleText(timeline)}: `
      + 'its latest spec was never reconciled, or its status never written',
  })));
}

function settleText(timeline: SoakTimeline): string {
  return `settle (${durationText(timeline.endedAt - timeline.settleStartedAt)} from ${timeText(timeline.settleStartedAt)})`;
}
