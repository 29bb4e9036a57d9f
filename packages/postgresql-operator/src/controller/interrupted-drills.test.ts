import { describe, expect, it } from 'vitest';
import { InterruptedDrills } from './interrupted-drills.ts';

const MINUTE = 60_000;

describe('InterruptedDrills', () => {
  it('lets a drill start at once until it is interrupted', () => {
    expect(new InterruptedDrills().waitMs('shop/db', 0)).toBe(0);
  });

  it('waits 15 s after the first interruption, doubling up to 15 min while the interruptions go on', () => {
    const drills = new InterruptedDrills();
    const delays = Array.from({ length: 8 }, () => drills.interrupted('shop/db', 0));
    expect(delays).toEqual([15_000, 30_000, 60_000, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE, 15 * MINUTE, 15 * MINUTE]);
    expect(drills.waitMs('shop/db', 10 * MINUTE)).toBe(5 * MINUTE);
    expect(drills.waitMs('shop/db', 15 * MINUTE)).toBe(0);
  });

  it('keeps each database apart, and starts over once a drill is recorded', () => {
    const drills = new InterruptedDrills();
    drills.interrupted('shop/db', 0);
    drills.interrupted('shop/db', 0);
    expect(drills.waitMs('shop/other', 0)).toBe(0);
    drills.finished('shop/db');
    expect(drills.waitMs('shop/db', 0)).toBe(0);
    expect(drills.interrupted('shop/db', 0)).toBe(15_000);
  });
});
