import { describe, expect, it } from 'vitest';
import { ownedMetadata } from './owned-metadata.ts';
import { controllerReference } from './owner-references.ts';

const database = { apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL', metadata: { namespace: 'shop', name: 'foodb', uid: 'uid-db' } };

describe('ownedMetadata', () => {
  it('puts the object in the owner namespace, with the given labels and the owner as controller', () => {
    expect(ownedMetadata(database, { name: 'foodb-data', labels: { app: 'foodb' } })).toStrictEqual({
      name: 'foodb-data',
      namespace: 'shop',
      labels: { app: 'foodb' },
      ownerReferences: [controllerReference(database)],
    });
  });

  it('carries annotations only when given', () => {
    const metadata = ownedMetadata(database, { name: 'foodb', labels: {}, annotations: { note: 'kept' } });
    expect(metadata.annotations).toStrictEqual({ note: 'kept' });
    expect(Object.keys(metadata)).toEqual(['name', 'namespace', 'labels', 'annotations', 'ownerReferences']);
  });

  it('refuses an owner that was not read from the API server', () => {
    const namespaceless = { ...database, metadata: { name: 'foodb', uid: 'uid-db' } };
    expect(() => ownedMetadata(namespaceless, { name: 'foodb', labels: {} })).toThrow(
      new Error('PostgreSQL has no metadata.namespace; pass the object as read from the API server'),
    );
    const unsaved = { ...database, metadata: { namespace: 'shop', name: 'foodb' } };
    expect(() => ownedMetadata(unsaved, { name: 'foodb', labels: {} })).toThrow(/owner has no metadata.uid/);
  });
});
