import { parseRfc3339 } from './rfc3339.ts';

/**
 * `spec.maintpageconfig.schedule`: a one-off window, open from `start` (inclusive) to `end` (exclusive). A missing
 * `start` means "open already", a missing `end` "open until the schedule is removed". All arithmetic is on instants
 * (milliseconds since the epoch), so time zones and daylight-saving changes cannot shift a boundary.
 */
export interface MaintenanceWindow {
  start?: string | undefined;
  end?: string | undefined;
}

interface Bounds {
  start: number;
  end: number;
}

/** The window's bounds as instants, or `undefined` for no window: neither bound set, or a bound that does not parse. */
function boundsOf(window: MaintenanceWindow | undefined): Bounds | undefined {
  if (window === undefined || (window.start === undefined && window.end === undefined)) return undefined;
  const start = window.start === undefined ? -Infinity : parseRfc3339(window.start);
  const end = window.end === undefined ? Infinity : parseRfc3339(window.end);
  // The API server refuses malformed times; should one get through anyway, never open maintenance by surprise.
  if (start === undefined || end === undefined) return undefined;
  return { start, end };
}

/** Whether `now` lies in the window: start <= now < end. */
export function isWindowOpen(window: MaintenanceWindow | undefined, now: Date): boolean {
  const bounds = boundsOf(window);
  const instant = now.getTime();
  return bounds !== undefined && bounds.start <= instant && instant < bounds.end;
}

/**
 * The next instant after `now` at which the window opens or closes, for a reconciler to requeue exactly then;
 * `undefined` when nothing more will change (no window, or its end has passed).
 */
export function nextWindowBoundary(window: MaintenanceWindow | undefined, now: Date): Date | undefined {
  const bounds = boundsOf(window);
  if (bounds === undefined) return undefined;
  const instant = now.getTime();
  const next = [bounds.start, bounds.end].find((boundary) => boundary > instant && Number.isFinite(boundary));
  return next === undefined ? undefined : new Date(next);
}
