import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json-equal.ts';

describe('jsonEqual', () => {
  it('ignores the order of object keys, at any depth', () => {
    const a = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] };
    const b = { conditions: [{ reason: 'Available', status: 'True', type: 'Ready' }], phase: 'Running' };
    expect(jsonEqual(a, b)).toBe(true);
  });

  it('sees any difference in values, keys, list order or list length', () => {
    expect(jsonEqual({ phase: 'Running' }, { phase: 'Pending' })).toBe(false);
    expect(jsonEqual({ phase: 'Running' }, { phase: 'Running', replicas: 1 })).toBe(false);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([1], [1, 1])).toBe(false);
    expect(jsonEqual({ n: 1 }, { n: '1' })).toBe(false);
    expect(jsonEqual({ list: [] }, { list: {} })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
  });

  it('treats keys set to undefined as absent, as JSON does', () => {
    expect(jsonEqual({ phase: 'Running', message: undefined }, { phase: 'Running' })).toBe(true);
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(true);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: 2 })).toBe(false);
  });

  it('compares dates by their JSON form', () => {
    expect(jsonEqual({ at: new Date('2026-01-02T15:04:05.000Z') }, { at: '2026-01-02T15:04:05.000Z' })).toBe(true);
    expect(jsonEqual({ at: new Date('2026-01-02T15:04:05.000Z') }, { at: '2026-01-02T15:04:05Z' })).toBe(false);
  });

  it('tells an absent status from an empty one', () => {
    expect(jsonEqual(undefined, {})).toBe(false);
    expect(jsonEqual(undefined, undefined)).toBe(true);
  });
});
