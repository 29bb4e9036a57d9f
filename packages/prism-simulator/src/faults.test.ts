import { describe, expect, it } from 'vitest';
import { FaultInjector, InvalidFaultRuleError, validateFaultRule, type FaultRule } from './faults.ts';

describe('FaultInjector', () => {
  it('fires a rule only for its endpoint and only `times` times', () => {
    const faults = new FaultInjector(1, [{ kind: 'error', endpoint: 'POST /vms', times: 2, status: 503 }]);
    expect(faults.decideRequest('GET /vms/{uuid}').before).toBeUndefined();
    expect(faults.decideRequest('POST /vms').before).toEqual({ kind: 'error', status: 503 });
    expect(faults.decideRequest('POST /vms').before).toEqual({ kind: 'error', status: 503 });
    expect(faults.decideRequest('POST /vms').before).toBeUndefined();
    expect(faults.list()).toEqual([]);
  });

  it('keeps a fault after serving for a request that is served: one answered by a fault before does not use it up', () => {
    // The drop-after rule comes first in the list: order must not matter.
    const faults = new FaultInjector(1, [
      { kind: 'drop', endpoint: 'POST /vms', phase: 'after', times: 1 },
      { kind: 'rate-limit', endpoint: 'POST /vms', times: 1 },
    ]);
    expect(faults.decideRequest('POST /vms')).toMatchObject({ before: { kind: 'rate-limit' }, after: undefined });
    expect(faults.decideRequest('POST /vms')).toMatchObject({ before: undefined, after: { kind: 'drop' } });
    expect(faults.list()).toEqual([]);
  });

  it('draws probabilities from a seeded sequence, so the same seed gives the same faults', () => {
    const rule: FaultRule = { kind: 'drop', probability: 0.5 };
    const outcomes = (seed: number): boolean[] => {
      const faults = new FaultInjector(seed, [rule]);
      return Array.from({ length: 40 }, () => faults.decideRequest('GET /vms/{uuid}').before !== undefined);
    };
    expect(outcomes(42)).toEqual(outcomes(42));
    expect(outcomes(42).filter(Boolean).length).toBeGreaterThan(5);
    expect(outcomes(42).filter(Boolean).length).toBeLessThan(35);
    const reseeded = new FaultInjector(7, [rule]);
    reseeded.decideRequest(undefined);
    reseeded.reseed(42);
    expect(Array.from({ length: 40 }, () => reseeded.decideRequest(undefined).before !== undefined)).toEqual(outcomes(42));
  });

  it('adds up latency and keeps one action per phase', () => {
    const faults = new FaultInjector(1, [
      { kind: 'latency', latencyMs: 30 },
      { kind: 'latency', latencyMs: 20, endpoint: 'POST /vms/list' },
      { kind: 'drop', phase: 'after' },
      { kind: 'error', phase: 'after', status: 502 },
      { kind: 'rate-limit', retryAfterSeconds: 5, times: 1 },
      { kind: 'error' },
    ]);
    expect(faults.decideRequest('POST /vms/list')).toEqual({
      latencyMs: 50,
      before: { kind: 'rate-limit', retryAfterSeconds: 5 },
      after: undefined,
    });
    expect(faults.decideRequest('POST /vms/list')).toEqual({ latencyMs: 50, before: { kind: 'error', status: 500 }, after: undefined });
  });

  it('decides task faults per operation', () => {
    const faults = new FaultInjector(1, [
      { kind: 'slow-task', extraMs: 100 },
      { kind: 'task-failure', operation: 'update', times: 1 },
    ]);
    expect(faults.decideTask('create')).toEqual({ extraMs: 100, failure: undefined });
    expect(faults.decideTask('update')).toEqual({ extraMs: 100, failure: { errorCode: 'INTERNAL_ERROR', errorDetail: 'INTERNAL_ERROR: ErrorCode: 9' } });
    expect(faults.decideTask('update').failure).toBeUndefined();
  });

  it('adds, lists and removes rules by id', () => {
    const faults = new FaultInjector();
    const id = faults.add({ kind: 'latency', latencyMs: 5 });
    expect(faults.list()).toEqual([{ kind: 'latency', latencyMs: 5, id, fired: 0 }]);
    expect(faults.remove(id)).toBe(true);
    expect(faults.remove(id)).toBe(false);
  });

  it('refuses invalid rules with details', () => {
    const faults = new FaultInjector();
    expect(() => faults.add({ kind: 'error', status: 404 })).toThrow(InvalidFaultRuleError);
    expect(validateFaultRule({ kind: 'error', status: 404 })).toEqual({ status: ['404 is less than the minimum of 500'] });
    expect(validateFaultRule({ kind: 'latency' })).toEqual({ '': ["'latencyMs' is a required property"] });
    expect(validateFaultRule({ kind: 'drop', endpoint: 'GET /nope' }).endpoint?.[0]).toMatch(/is not one of/);
    expect(validateFaultRule({ kind: 'drop', probabilty: 0.5 })).toEqual({ '': ["Additional properties are not allowed ('probabilty' was unexpected)"] });
    expect(validateFaultRule({ kind: 'explode' }).kind?.[0]).toMatch(/^"explode" is not one of/);
  });
});
