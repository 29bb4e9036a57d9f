import { describe, expect, it } from 'vitest';
import { controllerReference, getControllerOf, isControlledBy, withControllerReference } from './owner-references.ts';

const page = {
  apiVersion: 'maintpage.example.com/v1alpha1',
  kind: 'MaintPage',
  metadata: { namespace: 'shop', name: 'web', uid: 'uid-page' },
};
const pageRef = {
  apiVersion: 'maintpage.example.com/v1alpha1',
  kind: 'MaintPage',
  name: 'web',
  uid: 'uid-page',
  controller: true,
  blockOwnerDeletion: true,
};

describe('controllerReference', () => {
  it('builds a controller reference that blocks owner deletion by default', () => {
    expect(controllerReference(page)).toEqual(pageRef);
    expect(controllerReference(page, { blockOwnerDeletion: false }).blockOwnerDeletion).toBe(false);
  });

  it('says which field is missing from an owner that was not read from the API server', () => {
    const unsaved = { apiVersion: 'maintpage.example.com/v1alpha1', kind: 'MaintPage', metadata: { name: 'web' } };
    expect(() => controllerReference(unsaved)).toThrow(/owner has no metadata.uid/);
    const kindless = { metadata: { name: 'web', uid: 'u' } };
    expect(() => controllerReference(kindless)).toThrow(/owner has no apiVersion/);
  });
});

describe('getControllerOf / isControlledBy', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      namespace: 'shop',
      name: 'web-maintenance',
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'uid-cm' }, pageRef],
    },
  };

  it('finds the owner reference marked controller and compares owners by UID', () => {
    expect(getControllerOf(deployment)).toEqual(pageRef);
    expect(isControlledBy(deployment, page)).toBe(true);
    const sameNameOtherUid = { ...page, metadata: { ...page.metadata, uid: 'uid-recreated' } };
    expect(isControlledBy(deployment, sameNameOtherUid)).toBe(false);
    const orphan = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } };
    expect(getControllerOf(orphan)).toBeUndefined();
    expect(isControlledBy(orphan, page)).toBe(false);
  });
});

describe('withControllerReference', () => {
  it('adds the reference, keeping other owners', () => {
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'shop', name: 'web', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u' }] },
    };
    expect(withControllerReference(service, page)).toEqual({
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u' }, pageRef],
      changed: true,
    });
  });

  it('reports no change when the reference is already there, and updates one from another version', () => {
    const owned = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'shop', name: 'web', ownerReferences: [pageRef] } };
    expect(withControllerReference(owned, page)).toEqual({ ownerReferences: [pageRef], changed: false });
    const oldVersion = { ...pageRef, apiVersion: 'maintpage.example.com/v1alpha0' };
    const ownedOld = { ...owned, metadata: { ...owned.metadata, ownerReferences: [oldVersion] } };
    expect(withControllerReference(ownedOld, page)).toEqual({ ownerReferences: [pageRef], changed: true });
  });

  it('refuses a second controller and cross-namespace or cluster-scoped ownership', () => {
    const otherController = { ...pageRef, kind: 'Other', name: 'boss', uid: 'uid-boss' };
    const taken = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'shop', name: 'web', ownerReferences: [otherController] } };
    expect(() => withControllerReference(taken, page)).toThrow(/already controlled by Other boss/);
    const elsewhere = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'other', name: 'web' } };
    expect(() => withControllerReference(elsewhere, page)).toThrow(/an object in namespace other/);
    const clusterScoped = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'web' } };
    expect(() => withControllerReference(clusterScoped, page)).toThrow(/cannot own a cluster-scoped object/);
  });
});
