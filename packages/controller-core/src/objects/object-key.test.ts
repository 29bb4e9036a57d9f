import { describe, expect, it } from 'vitest';
import { objectKey, parseObjectKey } from './object-key.ts';

describe('objectKey', () => {
  it('is namespace/name for namespaced objects and name for cluster-scoped ones', () => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'shop', name: 'web' } };
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } };
    expect(objectKey(service)).toBe('shop/web');
    expect(objectKey(node)).toBe('node-1');
    expect(objectKey({ namespace: 'shop', name: 'web' })).toBe('shop/web');
  });

  it('refuses an object without a name', () => {
    const unnamed = { apiVersion: 'v1', kind: 'Service', metadata: { generateName: 'web-' } };
    expect(() => objectKey(unnamed)).toThrow(/no metadata.name/);
  });
});

describe('parseObjectKey', () => {
  it('inverts objectKey', () => {
    expect(parseObjectKey('shop/web')).toEqual({ namespace: 'shop', name: 'web' });
    expect(parseObjectKey('node-1')).toEqual({ name: 'node-1' });
  });

  it('rejects keys objectKey cannot produce', () => {
    for (const key of ['', '/web', 'shop/', 'a/b/c']) {
      expect(() => parseObjectKey(key)).toThrow(/neither "name" nor "namespace\/name"/);
    }
  });
});
