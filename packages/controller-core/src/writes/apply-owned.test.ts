import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it, test } from 'vitest';
import type { ApplyConfiguration, ApplyOptions } from '../client/kube-client.ts';
import { Resources, type ResourceRef } from '../client/resources.ts';
import type { OwnerReference } from '../objects/owner-references.ts';
import { APPLIED_HASH_ANNOTATION, applyOwned, containsDesired, ownershipConflict } from './apply-owned.ts';

const page = Object.freeze({
  apiVersion: 'maintpage.example.com/v1alpha1',
  kind: 'MaintPage',
  metadata: Object.freeze({ namespace: 'shop', name: 'web', uid: 'uid-page' }),
});
const pageReference = {
  apiVersion: 'maintpage.example.com/v1alpha1',
  kind: 'MaintPage',
  name: 'web',
  uid: 'uid-page',
  controller: true,
  blockOwnerDeletion: true,
};

function service(ownerReferences?: OwnerReference[]): KubernetesObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'shop', name: 'web-maintenance', ...(ownerReferences && { ownerReferences }) } };
}

describe('applyOwned', () => {
  it('applies the desired object with the owner as its controller, forcing by default', async () => {
    const applied: { obj: unknown; options: ApplyOptions }[] = [];
    const client = {
      apply<T extends KubernetesObject>(_ref: ResourceRef<T>, obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
        applied.push({ obj, options });
        return Promise.resolve(obj as T);
      },
    };
    const desired = Object.freeze({ metadata: Object.freeze({ namespace: 'shop', name: 'web-maintenance', labels: { app: 'web' } }), spec: { ports: [{ port: 80 }] } });
    await applyOwned(client, Resources.Service, desired, { owner: page, fieldManager: 'maintpage-operator' });
    await applyOwned(client, Resources.Service, desired, { owner: page, fieldManager: 'maintpage-operator', force: false });
    expect(applied[0]).toEqual({
      obj: {
        metadata: {
          namespace: 'shop', name: 'web-maintenance', labels: { app: 'web' }, ownerReferences: [pageReference],
          annotations: { [APPLIED_HASH_ANNOTATION]: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown },
        },
        spec: { ports: [{ port: 80 }] },
      },
      options: { fieldManager: 'maintpage-operator', force: true },
    });
    expect(applied[1]?.options).toEqual({ fieldManager: 'maintpage-operator', force: false });
  });

  it('refuses to apply an object into another namespace than its owner, or into none', () => {
    const client = { apply: () => Promise.reject(new Error('must not be called')) };
    const elsewhere = { metadata: { namespace: 'other', name: 'web-maintenance' } };
    expect(() => applyOwned(client, Resources.Service, elsewhere, { owner: page, fieldManager: 'm' })).toThrow(/an object in namespace other/);
    const nowhere = { metadata: { name: 'web-maintenance' } };
    expect(() => applyOwned(client, Resources.Service, nowhere, { owner: page, fieldManager: 'm' })).toThrow(
      /Service web-maintenance is namespaced: set metadata.namespace/,
    );
  });
});

describe('ownershipConflict', () => {
  it('finds none when there is no object or the owner controls it', () => {
    expect(ownershipConflict(undefined, page)).toBeUndefined();
    expect(ownershipConflict(service([pageReference]), page)).toBeUndefined();
  });

  it('describes an object nobody controls', () => {
    expect(ownershipConflict(service(), page)).toBe(
      'Service shop/web-maintenance already exists and is not controlled by MaintPage shop/web; delete or rename it so ' +
        'MaintPage shop/web can manage it',
    );
  });

  it('describes an object another controller controls', () => {
    const other = { ...pageReference, kind: 'Deployment', apiVersion: 'apps/v1', name: 'web', uid: 'uid-deploy' };
    expect(ownershipConflict(service([other]), page)).toBe(
      'Service shop/web-maintenance already exists and is controlled by Deployment web, not by MaintPage shop/web',
    );
  });

  it('describes an object left by an earlier owner of the same name (compared by UID)', () => {
    const earlier = { ...pageReference, uid: 'uid-earlier' };
    expect(ownershipConflict(service([earlier]), page)).toMatch(
      /controlled by an earlier MaintPage shop\/web \(uid uid-earlier\), not by this one \(uid uid-page\)/,
    );
  });
});

describe('skipping applies the cache shows are unnecessary', () => {
  test('containsDesired compares only the desired fields, arrays in order', () => {
    expect(containsDesired({ a: 1, b: { c: [1, { d: 2, e: 3 }] }, extra: true }, { a: 1, b: { c: [1, { d: 2 }] } })).toBe(true);
    expect(containsDesired({ a: 1, b: { c: [1] } }, { b: { c: [1, 2] } })).toBe(false);
    expect(containsDesired({ a: '1' }, { a: 1 })).toBe(false);
    expect(containsDesired({}, { a: undefined })).toBe(true);
  });

  test('an apply is skipped only when the cached object has the same applied hash and every desired value', async () => {
    const applied: unknown[] = [];
    const client = {
      apply<T extends KubernetesObject>(_ref: ResourceRef<T>, obj: ApplyConfiguration<T>): Promise<T> {
        applied.push(obj);
        return Promise.resolve(obj as T);
      },
    };
    const owner = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', uid: 'u1' } };
    const desired = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w', namespace: 'ns' }, data: { k: 'v' } };
    const first = await applyOwned(client, Resources.ConfigMap, desired, { owner, fieldManager: 'test' });
    expect(applied).toHaveLength(1);
    expect(first.metadata?.annotations?.[APPLIED_HASH_ANNOTATION]).toMatch(/^[0-9a-f]{32}$/);
    await applyOwned(client, Resources.ConfigMap, desired, { owner, fieldManager: 'test', current: first });
    expect(applied).toHaveLength(1);
    // Someone edited a field we own: apply again to put it back.
    await applyOwned(client, Resources.ConfigMap, desired, { owner, fieldManager: 'test', current: { ...first, data: { k: 'edited' } } });
    expect(applied).toHaveLength(2);
    // The desired state dropped a field: the hash changes, so the apply (which removes it) is sent.
    await applyOwned(client, Resources.ConfigMap, { ...desired, data: {} }, { owner, fieldManager: 'test', current: first });
    expect(applied).toHaveLength(3);
  });
});
