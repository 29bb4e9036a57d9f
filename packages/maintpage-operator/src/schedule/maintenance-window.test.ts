import { describe, expect, it } from 'vitest';
import { resolveMaintenanceWindow, type ResolvedMaintenanceWindow } from '../api/resolved-maintpage.ts';
import { isWindowOpen, nextWindowBoundary } from './maintenance-window.ts';

const start = '2026-03-01T22:00:00Z';
const end = '2026-03-02T02:00:00Z';
const at = (iso: string): Date => new Date(iso);

/** The window a schedule resolves to (resolved-maintpage.test.ts covers the schedules that are spec problems). */
function windowOf(schedule: { start?: string; end?: string }): ResolvedMaintenanceWindow | undefined {
  const resolution = resolveMaintenanceWindow(schedule);
  if (!resolution.ok) throw new Error(resolution.message);
  return resolution.window;
}

describe('isWindowOpen', () => {
  it.each([
    ['one millisecond before start', '2026-03-01T21:59:59.999Z', false],
    ['exactly at start (inclusive)', '2026-03-01T22:00:00.000Z', true],
    ['inside', '2026-03-02T00:00:00Z', true],
    ['one millisecond before end', '2026-03-02T01:59:59.999Z', true],
    ['exactly at end (exclusive)', '2026-03-02T02:00:00.000Z', false],
    ['after end', '2026-03-03T00:00:00Z', false],
  ])('start/end window, %s: %s', (_what, now, open) => {
    expect(isWindowOpen(windowOf({ start, end }), at(now))).toBe(open);
  });

  it('compares instants, whatever zone each bound is written in', () => {
    const window = windowOf({ start: '2026-03-02T07:00:00+09:00', end: '2026-03-01T21:00:00-05:00' }); // 22:00Z to 02:00Z
    expect(isWindowOpen(window, at('2026-03-01T21:59:59Z'))).toBe(false);
    expect(isWindowOpen(window, at('2026-03-01T22:00:00Z'))).toBe(true);
    expect(isWindowOpen(window, at('2026-03-02T02:00:00Z'))).toBe(false);
  });

  it('without start, is open until end', () => {
    expect(isWindowOpen(windowOf({ end }), at('2000-01-01T00:00:00Z'))).toBe(true);
    expect(isWindowOpen(windowOf({ end }), at(end))).toBe(false);
  });

  it('without end, stays open from start on', () => {
    expect(isWindowOpen(windowOf({ start }), at('2026-03-01T21:59:59Z'))).toBe(false);
    expect(isWindowOpen(windowOf({ start }), at('2099-01-01T00:00:00Z'))).toBe(true);
  });

  it('is never open without a window', () => {
    expect(isWindowOpen(undefined, at('2026-03-02T00:00:00Z'))).toBe(false);
  });
});

describe('nextWindowBoundary', () => {
  it('is the start before the window opens, the end while it is open, and nothing after it closed', () => {
    const window = windowOf({ start, end });
    expect(nextWindowBoundary(window, at('2026-03-01T12:00:00Z'))).toEqual(at(start));
    expect(nextWindowBoundary(window, at(start))).toEqual(at(end));
    expect(nextWindowBoundary(window, at('2026-03-02T01:00:00Z'))).toEqual(at(end));
    expect(nextWindowBoundary(window, at(end))).toBeUndefined();
  });

  it('has only the bounds that are set', () => {
    expect(nextWindowBoundary(windowOf({ start }), at(start))).toBeUndefined();
    expect(nextWindowBoundary(windowOf({ end }), at('2026-03-01T00:00:00Z'))).toEqual(at(end));
  });

  it('is undefined without a window', () => {
    expect(nextWindowBoundary(undefined, at(start))).toBeUndefined();
  });
});
