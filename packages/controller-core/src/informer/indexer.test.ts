import { describe, expect, it } from 'vitest';
import type { KubernetesObject } from '@kubernetes/client-node';
import { CONTROLLER_OWNER_INDEX, controllerOwnerIndexFunc, ObjectIndexes } from './indexer.ts';

function ownedBy(owner: string, name: string): KubernetesObject {
  return { metadata: { name, namespace: 'ns', ownerReferences: [{ apiVersion: 'v1', kind: 'Widget', name: owner, uid: owner, controller: true }] } };
}

function indexes(): ObjectIndexes<KubernetesObject> {
  const errors: unknown[] = [];
  const result = new ObjectIndexes<KubernetesObject>((_index, _key, error) => errors.push(error));
  result.add(CONTROLLER_OWNER_INDEX, controllerOwnerIndexFunc, []);
  return result;
}

const keysUnder = (index: ObjectIndexes<KubernetesObject>, value: string): string[] => [...index.keys(CONTROLLER_OWNER_INDEX, value)].sort();

describe('ObjectIndexes', () => {
  it('finds one key, then several, under a value, and forgets the value once its last key goes', () => {
    const index = indexes();
    index.update('ns/a', undefined, ownedBy('u1', 'a'));
    expect(keysUnder(index, 'u1')).toEqual(['ns/a']);
    index.update('ns/b', undefined, ownedBy('u1', 'b'));
    index.update('ns/c', undefined, ownedBy('u1', 'c'));
    expect(keysUnder(index, 'u1')).toEqual(['ns/a', 'ns/b', 'ns/c']);
    index.update('ns/a', ownedBy('u1', 'a'), undefined);
    index.update('ns/c', ownedBy('u1', 'c'), undefined);
    expect(keysUnder(index, 'u1')).toEqual(['ns/b']);
    index.update('ns/b', ownedBy('u1', 'b'), undefined);
    expect(keysUnder(index, 'u1')).toEqual([]);
  });

  it('moves a key whose object changed value, and keeps it once when it did not', () => {
    const index = indexes();
    index.update('ns/a', undefined, ownedBy('u1', 'a'));
    index.update('ns/a', ownedBy('u1', 'a'), ownedBy('u1', 'a'));
    expect(keysUnder(index, 'u1')).toEqual(['ns/a']);
    index.update('ns/a', ownedBy('u1', 'a'), ownedBy('u2', 'a'));
    expect(keysUnder(index, 'u1')).toEqual([]);
    expect(keysUnder(index, 'u2')).toEqual(['ns/a']);
  });

  it('refuses an unknown index', () => {
    expect(() => indexes().keys('nope', 'x')).toThrow(/no index named "nope"/);
  });
});
