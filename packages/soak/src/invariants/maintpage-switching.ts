// Whether each app's Service answered as the workload wanted: the maintenance page while maintenance was wanted, the
// app otherwise. Each change of the wish opens an interval, up to the app's next change or the end of observation
// (the probes go on through the settle), that the probes through the Service are judged against.
import { MIN_HOLD_MS, type InvariantResult, type ProbeResult, type SoakTimeline, type WantedChange } from '../timeline.ts';
import { consecutiveRuns } from './consecutive-runs.ts';
import { durationText, runText, timeText } from './evidence-text.ts';
import { invariantResult, type Finding } from './invariant-result.ts';

/**
 * A fault's effects outlast it (a new leader takes over, watches resync), so a switch within a minute of a fault's
 * end counts as one made during faults.
 */
const FAULT_AFTERMATH_MS = 60_000;

type Side = 'page' | 'app';

interface WantedInterval {
  change: WantedChange;
  endAt: number;
  /**
   * What ended the interval: the app's next change, or the end of observation: the end of the run, or the settle for
   * timelines recorded when the probes stopped there.
   */
  endedBy: 'the next change' | 'the end of the run' | 'the settle';
  expected: Side;
  /** The app's probes in [change.at, endAt), in time order. */
  probes: ProbeResult[];
  /** The first probe that answered as wanted, if any did. */
  switchProbe: ProbeResult | undefined;
}

/**
 * maintpage.neverSwitched: no probe in an interval answered as wanted. An interval without any probe (two changes
 * in quick succession) says nothing about the operator and is not judged. Nor is one that the end of observation cut
 * shorter than MIN_HOLD_MS: the workload gives each wish that long, the end of the run does not.
 */
export function checkNeverSwitched(timeline: SoakTimeline): InvariantResult {
  return invariantResult('maintpage.neverSwitched', wantedIntervals(timeline).flatMap((interval): Finding[] => {
    if (interval.probes.length === 0 || interval.switchProbe) return [];
    if (interval.endedBy !== 'the next change' && interval.endAt - interval.change.at < MIN_HOLD_MS) return [];
    const { change, endAt, endedBy, expected, probes } = interval;
    const answered = (side: ProbeResult['answered']): number => probes.filter((probe) => probe.answered === side).length;
    return [{
      at: change.at,
      evidence: `App ${change.app}: ${wishText(change)} from ${timeText(change.at)} until ${endedBy} at ${timeText(endAt)} `
        + `(${durationText(endAt - change.at)}), but none of its ${probes.length} probes answered ${sideText(expected)}: `
        + `${answered('app')} answered the app, ${answered('page')} the maintenance page, ${answered('error')} failed`,
    }];
  }));
}

/**
 * maintpage.flapped: after the Service first answered as wanted, it answered the other side again within the same
 * interval. Failed probes neither start nor end a flap: they are maintpage.probeErrors'.
 */
export function checkFlapped(timeline: SoakTimeline): InvariantResult {
  return invariantResult('maintpage.flapped', wantedIntervals(timeline).flatMap(({ change, endAt, endedBy, expected, probes, switchProbe }) => {
    if (!switchProbe) return [];
    const switchedAt = switchProbe.at;
    const afterSwitch = probes.slice(probes.indexOf(switchProbe) + 1);
    const flaps = consecutiveRuns(afterSwitch, (probe) => {
      if (probe.answered === 'error') return 'passes';
      return probe.answered === expected ? 'breaks' : 'member';
    });
    return flaps.map((flap) => ({
      at: flap.first.at,
      evidence: `App ${change.app} answered ${sideText(expected)} from ${timeText(switchedAt)} (${durationText(switchedAt - change.at)} `
        + `after ${wishText(change)} at ${timeText(change.at)}), then ${sideText(otherSide(expected))} again ${runText(flap, 'probe')}, `
        + `though ${wishText(change)} until ${endedBy} at ${timeText(endAt)}`,
    }));
  }));
}

/** maintpage.probeErrors: requests through an app's Service that failed, one violation per run of consecutive failures. */
export function checkProbeErrors(timeline: SoakTimeline): InvariantResult {
  const findings: Finding[] = [];
  for (const [app, probes] of Map.groupBy(timeline.probes, (probe) => probe.app)) {
    const sorted = probes.toSorted((a, b) => a.at - b.at);
    for (const run of consecutiveRuns(sorted, (probe) => probe.answered === 'error' ? 'member' : 'breaks')) {
      const reasons = Map.groupBy(run.members, probeErrorText);
      const reasonsText = [...reasons].map(([reason, failed]) => `${reason} (${failed.length})`).join(', ');
      findings.push({ at: run.first.at, evidence: `App ${app}: probes through its Service failed ${runText(run, 'probe')}: ${reasonsText}` });
    }
  }
  return invariantResult('maintpage.probeErrors', findings);
}

/**
 * For the report: how long each switch took, from the change of the wish to the first probe that answered as wanted
 * (during the settle too), in ms. "During faults" when some fault, or the minute after it, overlaps the switch. The
 * initial state is no switch: its first probe waits for every workload to be prepared, seconds that say nothing of
 * the operator.
 */
export function switchLatencies(timeline: SoakTimeline): { duringFaults: number[]; withoutFaults: number[] } {
  const duringFaults: number[] = [];
  const withoutFaults: number[] = [];
  for (const { change, switchProbe } of wantedIntervals(timeline)) {
    if (!switchProbe || change.how === 'initial') continue;
    const switchedAt = switchProbe.at;
    const overlapsFault = timeline.faults.some((fault) => fault.startAt <= switchedAt && fault.endAt + FAULT_AFTERMATH_MS >= change.at);
    (overlapsFault ? duringFaults : withoutFaults).push(switchedAt - change.at);
  }
  return { duringFaults, withoutFaults };
}

/**
 * Every app's wishes, each up to the app's next change or the end of observation, whichever is first. Changes after
 * the settle started are wishes like any other: a schedule window the spec holds opens and closes by itself.
 */
function wantedIntervals(timeline: SoakTimeline): WantedInterval[] {
  // Timelines recorded before the probes outlasted the workload have no observedUntil: their probes stopped at the
  // settle.
  const observedUntil = timeline.observedUntil ?? timeline.settleStartedAt;
  const endOfObservation = timeline.observedUntil === undefined ? 'the settle' : 'the end of the run';
  const probesByApp = Map.groupBy(timeline.probes, (probe) => probe.app);
  return [...Map.groupBy(timeline.wanted, (change) => change.app)].flatMap(([app, changes]) => {
    const appProbes = (probesByApp.get(app) ?? []).toSorted((a, b) => a.at - b.at);
    // A change to what was already wanted (a window opening while the toggle is on) asks the operator for nothing,
    // so the interval, and the switch latency, run from the change that did ask.
    const sortedChanges = changes.toSorted((a, b) => a.at - b.at)
      .filter((change, index, all) => index === 0 || change.wanted !== all[index - 1]?.wanted);
    return sortedChanges.map((change, index): WantedInterval => {
      const next = sortedChanges[index + 1];
      // A change after the end of observation (a window that closes later) ends nothing that was seen.
      const endedByNext = next !== undefined && next.at <= observedUntil;
      const endAt = endedByNext ? next.at : observedUntil;
      const expected: Side = change.wanted ? 'page' : 'app';
      const probes = appProbes.filter((probe) => probe.at >= change.at && probe.at < endAt);
      return {
        change,
        endAt,
        endedBy: endedByNext ? 'the next change' : endOfObservation,
        expected,
        probes,
        switchProbe: probes.find((probe) => probe.answered === expected),
      };
    });
  });
}

function wishText(change: WantedChange): string {
  return `maintenance was ${change.wanted ? 'wanted' : 'not wanted'} (${change.how})`;
}

function sideText(side: Side): string {
  return side === 'page' ? 'the maintenance page' : 'the app';
}

function otherSide(side: Side): Side {
  return side === 'page' ? 'app' : 'page';
}

function probeErrorText(probe: ProbeResult): string {
  if (probe.error !== undefined) return probe.error;
  return probe.status === undefined ? 'no reason recorded' : `HTTP ${probe.status}`;
}
