import { describe, expect, it } from 'vitest';
import {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
} from './conditions.ts';

const T0 = new Date('2026-03-01T10:00:00.750Z');
const T1 = new Date('2026-03-01T11:30:00Z');

/** Deep-frozen, as objects from the cache are. */
function frozen(conditions: Condition[]): readonly Condition[] {
  return Object.freeze(conditions.map((c) => Object.freeze({ ...c })));
}

const ready: Condition = {
  type: 'Ready',
  status: 'True',
  observedGeneration: 3,
  lastTransitionTime: '2026-02-01T00:00:00Z',
  reason: 'Switched',
  message: 'traffic goes to the app',
};

describe('setStatusCondition', () => {
  it('adds a new type stamped with now, in whole seconds as metav1.Time writes it', () => {
    const result = setStatusCondition(undefined, { type: 'Ready', status: 'False', reason: 'Pending' }, T0);
    expect(result).toEqual({
      conditions: [
        { type: 'Ready', status: 'False', lastTransitionTime: '2026-03-01T10:00:00Z', reason: 'Pending', message: '' },
      ],
      changed: true,
    });
  });

  it("keeps the caller's lastTransitionTime for a new type", () => {
    const { conditions } = setStatusCondition(
      [],
      { type: 'Degraded', status: 'False', reason: 'AsExpected', lastTransitionTime: '2026-01-01T00:00:00Z' },
      T0,
    );
    expect(conditions[0]?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
  });

  it('reports no change, and leaves the frozen input alone, when nothing differs', () => {
    const input = frozen([ready]);
    const result = setStatusCondition(
      input,
      { type: 'Ready', status: 'True', observedGeneration: 3, reason: 'Switched', message: 'traffic goes to the app' },
      T1,
    );
    expect(result.changed).toBe(false);
    expect(result.conditions).toEqual([ready]);
    expect(result.conditions).not.toBe(input);
  });

  it('moves lastTransitionTime only when the status changes', () => {
    const flipped = setStatusCondition(frozen([ready]), { type: 'Ready', status: 'False', observedGeneration: 3, reason: 'Switched', message: 'traffic goes to the app' }, T1);
    expect(flipped.changed).toBe(true);
    expect(flipped.conditions[0]).toMatchObject({ status: 'False', lastTransitionTime: '2026-03-01T11:30:00Z' });

    for (const update of [
      { reason: 'Maintenance' },
      { message: 'traffic goes to the maintenance page' },
      { observedGeneration: 4 },
    ]) {
      const result = setStatusCondition(
        frozen([ready]),
        { type: 'Ready', status: 'True', observedGeneration: 3, reason: 'Switched', message: 'traffic goes to the app', ...update },
        T1,
      );
      expect(result.changed).toBe(true);
      expect(result.conditions[0]).toEqual({ ...ready, ...update });
    }
  });

  it('treats an absent observedGeneration as 0, as metav1 omits zero', () => {
    const withoutGeneration: Condition = { type: 'Ready', status: 'True', lastTransitionTime: '2026-02-01T00:00:00Z', reason: 'Ok', message: '' };
    expect(setStatusCondition([withoutGeneration], { type: 'Ready', status: 'True', reason: 'Ok', observedGeneration: 0 }).changed).toBe(false);
    const cleared = setStatusCondition(frozen([ready]), { type: 'Ready', status: 'True', reason: 'Switched', message: 'traffic goes to the app' });
    expect(cleared.changed).toBe(true);
    expect(cleared.conditions[0]).not.toHaveProperty('observedGeneration');
  });

  it('keeps Ready first', () => {
    let { conditions } = setStatusCondition([], { type: 'Progressing', status: 'True', reason: 'Switching' }, T0);
    ({ conditions } = setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Switching' }, T0));
    ({ conditions } = setStatusCondition(conditions, { type: 'Degraded', status: 'False', reason: 'AsExpected' }, T0));
    expect(conditions.map((c) => c.type)).toEqual(['Ready', 'Progressing', 'Degraded']);

    const misordered = frozen([{ ...ready, type: 'Available' }, ready]);
    const result = setStatusCondition(misordered, { type: 'Available', status: 'True', observedGeneration: 3, reason: 'Switched', message: 'traffic goes to the app' });
    expect(result.conditions.map((c) => c.type)).toEqual(['Ready', 'Available']);
    expect(result.changed).toBe(true); // the order is part of what gets written
  });

  it('rejects values the API server would refuse, naming the problem', () => {
    const set = (reason: string, type = 'Ready') => () => setStatusCondition([], { type, status: 'True', reason });
    expect(set('backup failed')).toThrow(/reason "backup failed" must match/);
    expect(set('')).toThrow(/reason "" must match/);
    expect(set('Failed_')).not.toThrow();
    expect(set('Ok', 'not a type')).toThrow(/condition type "not a type" must be CamelCase/);
    expect(set('Ok', 'example.com/Ready')).not.toThrow();
    expect(() => setStatusCondition([], { type: 'Ready', status: 'true' as 'True', reason: 'Ok' })).toThrow(/status "true"/);
    expect(() => setStatusCondition([], { type: 'Ready', status: 'True', reason: 'Ok', observedGeneration: -1 })).toThrow(/observedGeneration/);
    expect(() => setStatusCondition([], { type: 'Ready', status: 'True', reason: 'Ok', lastTransitionTime: 'yesterday' })).toThrow(/RFC 3339/);
  });
});

describe('removeStatusCondition', () => {
  it('removes the type and reports whether anything changed', () => {
    const input = frozen([ready, { ...ready, type: 'Degraded', status: 'False' }]);
    const removed = removeStatusCondition(input, 'Degraded');
    expect(removed).toEqual({ conditions: [ready], changed: true });
    expect(removeStatusCondition(input, 'Progressing').changed).toBe(false);
    expect(removeStatusCondition(undefined, 'Ready')).toEqual({ conditions: [], changed: false });
    expect(input).toHaveLength(2);
  });
});

describe('condition queries', () => {
  const conditions = [ready, { ...ready, type: 'Degraded', status: 'False' as const }];
  it('find and test conditions by type', () => {
    expect(findStatusCondition(conditions, 'Degraded')?.status).toBe('False');
    expect(findStatusCondition(undefined, 'Ready')).toBeUndefined();
    expect(isStatusConditionTrue(conditions, 'Ready')).toBe(true);
    expect(isStatusConditionFalse(conditions, 'Ready')).toBe(false);
    expect(isStatusConditionFalse(conditions, 'Degraded')).toBe(true);
    expect(isStatusConditionTrue(conditions, 'Progressing')).toBe(false);
    expect(isStatusConditionFalse(conditions, 'Progressing')).toBe(false);
    expect(isStatusConditionPresentAndEqual(conditions, 'Degraded', 'False')).toBe(true);
    expect(isStatusConditionPresentAndEqual(conditions, 'Degraded', 'Unknown')).toBe(false);
  });
});
