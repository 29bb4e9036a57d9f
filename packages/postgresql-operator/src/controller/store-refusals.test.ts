import { describe, expect, it } from 'vitest';
import { StoreRefusals } from './store-refusals.ts';

describe('StoreRefusals', () => {
  it('counts refusals per backup, and starts again once forgotten', () => {
    const refusals = new StoreRefusals();
    expect([refusals.count('a'), refusals.count('a'), refusals.count('b'), refusals.count('a')]).toEqual([1, 2, 1, 3]);
    refusals.forget('a');
    expect(refusals.count('a')).toBe(1);
    expect(refusals.count('b')).toBe(2);
  });
});
