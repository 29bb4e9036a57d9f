// How evidence writes times, durations and runs, the same way in every checker: UTC timestamps line a violation up with
// the logs and dashboards an on-call engineer opens next, and durations read at a glance.
import type { Run } from './consecutive-runs.ts';

/** A moment as an ISO 8601 UTC timestamp, to the millisecond (endpoints are sampled every 100 ms). */
export function timeText(at: number): string {
  return new Date(at).toISOString();
}

/** A length of time in the units that keep it readable: 850 ms, 12.3 s, 4 min 5 s, 50 min, 2 h 7 min. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return withRest(`${Math.floor(seconds / 60)} min`, seconds % 60, 's');
  const minutes = Math.round(ms / 60_000);
  return withRest(`${Math.floor(minutes / 60)} h`, minutes % 60, 'min');
}

/** A count with its noun, singular for one: 1 row, 3 rows. */
export function countText(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function withRest(whole: string, rest: number, unit: string): string {
  return rest === 0 ? whole : `${whole} ${rest} ${unit}`;
}

/** Where a run was seen: `in 1 probe at …`, or `in 3 probes from … to … (0.5 s)`. */
export function runText(run: Run<{ at: number }>, noun: string): string {
  const { first, last, members } = run;
  if (members.length === 1) return `in 1 ${noun} at ${timeText(first.at)}`;
  return `in ${members.length} ${noun}s from ${timeText(first.at)} to ${timeText(last.at)} (${durationText(last.at - first.at)})`;
}
