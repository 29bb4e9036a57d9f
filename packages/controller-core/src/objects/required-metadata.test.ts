import { describe, expect, it } from 'vitest';
import { requiredName, requiredNamespace } from './required-metadata.ts';

const page = { apiVersion: 'maintpage.example.com/v1alpha1', kind: 'MaintPage', metadata: { namespace: 'shop', name: 'web' } };

describe('requiredName / requiredNamespace', () => {
  it('return the name and namespace of an object read from the API server', () => {
    expect(requiredName(page)).toBe('web');
    expect(requiredNamespace(page)).toBe('shop');
  });

  it('name the kind and the missing field when the object was built by hand', () => {
    const unnamed = { ...page, metadata: { namespace: 'shop', generateName: 'web-' } };
    expect(() => requiredName(unnamed)).toThrow(
      new Error('MaintPage has no metadata.name; pass the object as read from the API server'),
    );
    const namespaceless = { ...page, metadata: { name: 'web', namespace: '' } };
    expect(() => requiredNamespace(namespaceless)).toThrow(
      new Error('MaintPage has no metadata.namespace; pass the object as read from the API server'),
    );
    expect(() => requiredName({ metadata: {} })).toThrow(
      new Error('The object has no metadata.name; pass the object as read from the API server'),
    );
  });
});
