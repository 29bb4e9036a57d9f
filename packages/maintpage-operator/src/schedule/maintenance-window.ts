import type { ResolvedMaintenanceWindow } from '../api/resolved-maintpage.ts';

/**
 * The schedule window's open/next-boundary math. All arithmetic is on instants (milliseconds since the epoch), so time
 * zones and daylight-saving changes cannot shift a boundary. The window comes resolved (resolved-maintpage.ts): a
 * bound that does not parse is a spec problem there, so here every window is a real one.
 */

/** Whether `now` lies in the window: start <= now < end. Without a window, never. */
export function isWindowOpen(window: ResolvedMaintenanceWindow | undefined, now: Date): boolean {
  if (window === undefined) return false;
  const instant = now.getTime();
  return (window.start?.at.getTime() ?? -Infinity) <= instant && instant < (window.end?.at.getTime() ?? Infinity);
}

/**
 * The next instant after `now` at which the window opens or closes, for a reconciler to requeue exactly then;
 * `undefined` when nothing more will change (no window, or its end has passed).
 */
export function nextWindowBoundary(window: ResolvedMaintenanceWindow | undefined, now: Date): Date | undefined {
  const next = [window?.start, window?.end].find((bound) => bound !== undefined && bound.at.getTime() > now.getTime());
  return next === undefined ? undefined : new Date(next.at);
}
