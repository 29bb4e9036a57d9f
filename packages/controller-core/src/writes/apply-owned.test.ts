import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { ApplyConfiguration, ApplyOptions } from '../client/kube-client.ts';
import { Resources, type ResourceRef } from '../client/resources.ts';
import type { OwnerReference } from '../objects/owner-references.ts';
import { applyOwned, ownershipConflict } from './apply-owned.ts';

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
        metadata: { namespace: 'shop', name: 'web-maintenance', labels: { app: 'web' }, ownerReferences: [pageReference] },
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
