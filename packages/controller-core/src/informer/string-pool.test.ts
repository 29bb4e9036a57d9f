import { describe, expect, it } from 'vitest';
import { poolRepeatedStrings, StringPool } from './string-pool.ts';

interface Parsed {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    labels: Record<string, string>;
    finalizers: string[];
    ownerReferences: { apiVersion: string; kind: string; name: string; uid: string }[];
  };
  status: { conditions: { type: string; status: string; reason: string; message: string; lastTransitionTime: string }[] };
}

function widget(name: string): Parsed {
  return JSON.parse(
    JSON.stringify({
      apiVersion: 'bench.k8s-operators.io/v1',
      kind: 'Widget',
      metadata: {
        name,
        namespace: 'widgets-of-the-world',
        uid: `uid-of-${name}`,
        labels: { 'app.kubernetes.io/name': 'widget-operator-under-test' },
        finalizers: ['bench.k8s-operators.io/cleanup'],
        ownerReferences: [{ apiVersion: 'bench.k8s-operators.io/v1', kind: 'WidgetSet', name: 'set', uid: 'set-uid' }],
      },
      status: {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'ConfigMapApplied', message: 'the ConfigMap holds the spec', lastTransitionTime: '2026-11-26T03:40:00Z' },
        ],
      },
    }),
  ) as Parsed;
}

describe('StringPool', () => {
  it('hands back the first copy of an equal string, up to its capacity', () => {
    const pool = new StringPool(2);
    expect(pool.intern('a')).toBe('a');
    pool.intern('b');
    pool.intern('c');
    expect(pool.size).toBe(2);
    expect(pool.intern('c')).toBe('c');
  });

  it('keeps recent timestamps apart from the pool', () => {
    const pool = new StringPool();
    for (let second = 0; second < 10; second++) expect(pool.recent(`2026-11-26T03:40:0${String(second)}Z`)).toBe(`2026-11-26T03:40:0${String(second)}Z`);
    expect(pool.recent('2026-11-26T03:40:09Z')).toBe('2026-11-26T03:40:09Z');
    expect(pool.size).toBe(0);
  });

  it('does not pool long strings', () => {
    const pool = new StringPool();
    pool.intern('x'.repeat(500));
    expect(pool.size).toBe(0);
  });
});

describe('poolRepeatedStrings', () => {
  it('pools the fields that repeat and leaves the object equal to what was parsed', () => {
    const pool = new StringPool();
    const first = widget('one');
    const second = widget('two');
    const expected = widget('two');
    expect(poolRepeatedStrings(first, pool)).toBe(first);
    expect(poolRepeatedStrings(second, pool)).toEqual(expected);
    // apiVersion, kind, namespace, the label value, the finalizer, the owner's apiVersion and kind (apiVersion is
    // shared), the condition's type, status, reason and message.
    expect(pool.size).toBe(10);
  });

  it('pools nothing of a frozen object', () => {
    const pool = new StringPool();
    const frozen = Object.freeze(widget('ice'));
    expect(poolRepeatedStrings(frozen, pool)).toBe(frozen);
    expect(pool.size).toBe(0);
  });

  it('copes with objects that have none of the fields', () => {
    const pool = new StringPool();
    expect(poolRepeatedStrings({ apiVersion: 'v1', kind: 'Status' }, pool)).toEqual({ apiVersion: 'v1', kind: 'Status' });
    expect(poolRepeatedStrings({ metadata: {}, status: { conditions: [null, 'x'] } } as never, pool)).toEqual({ metadata: {}, status: { conditions: [null, 'x'] } });
  });
});
