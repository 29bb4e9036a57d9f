import { controllerReference, getControllerOf, Resources, requiredName, requiredNamespace, type JsonPatchOperation } from '@k8s-operators/controller-core';
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import type { OperatorContext } from './operator-context.ts';

/**
 * What an uninstall writes on a data claim it keeps: the name of the PostgreSQL whose data it holds. A PostgreSQL of
 * that name in the claim's namespace, created once the operator is installed again, takes the claim back (and serves
 * its data as it is); no other PostgreSQL does, and a claim without it is never taken over.
 */
export const KEPT_DATA_OF_ANNOTATION = 'exp.wheel.jp/kept-data-of';
// RFC 6901: '/' in a key is written '~1' in a JSON pointer.
const ANNOTATION_PATH = `/metadata/annotations/${KEPT_DATA_OF_ANNOTATION.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * Takes `postgresql`'s owner reference off its data claim, so that the garbage collector leaves the claim when the
 * PostgreSQL goes with its CRD, and marks the claim as kept for a PostgreSQL of the same name, in one JSON patch that
 * first tests the reference's UID at its index (a claim changed since the cache saw it is refused, and the reconcile
 * tried again, rather than another reference removed). Returns the claim's name, or undefined when there is none.
 */
export async function releaseDataClaim(context: OperatorContext, postgresql: PostgreSQL, claimName: string): Promise<string | undefined> {
  const { manager } = context;
  const key = { namespace: requiredNamespace(postgresql), name: claimName };
  const claim = await manager.reader.get(Resources.PersistentVolumeClaim, key);
  if (claim === undefined) return undefined;
  const index = (claim.metadata?.ownerReferences ?? []).findIndex((owner) => owner.uid === postgresql.metadata.uid);
  if (index >= 0) {
    const path = `/metadata/ownerReferences/${String(index)}`;
    await manager.client.patch(Resources.PersistentVolumeClaim, key, { type: 'json', patch: [
      { op: 'test', path: `${path}/uid`, value: postgresql.metadata.uid },
      { op: 'remove', path },
      annotate(claim, requiredName(postgresql)),
    ] });
  }
  return key.name;
}

/**
 * Takes back a data claim an uninstall kept for this PostgreSQL (its annotation names it, and nothing controls it):
 * the PostgreSQL becomes its controller again, the annotation goes, and an Event says so. Returns the claim as
 * patched, or undefined when the claim is not one to take (another's, controlled, or being deleted). The patch tests
 * the resourceVersion read, so a claim changed meanwhile is left for the next reconcile to look at again.
 */
export async function adoptKeptDataClaim(context: OperatorContext, postgresql: PostgreSQL, claim: V1PersistentVolumeClaim): Promise<V1PersistentVolumeClaim | undefined> {
  const meta = claim.metadata ?? {};
  if (meta.annotations?.[KEPT_DATA_OF_ANNOTATION] !== requiredName(postgresql) || getControllerOf(claim) !== undefined || meta.deletionTimestamp !== undefined) return undefined;
  const owner = controllerReference(postgresql);
  const adopted = await context.manager.client.patch(Resources.PersistentVolumeClaim, { namespace: requiredNamespace(postgresql), name: meta.name ?? '' }, { type: 'json', patch: [
    { op: 'test', path: '/metadata/resourceVersion', value: meta.resourceVersion },
    meta.ownerReferences === undefined ? { op: 'add', path: '/metadata/ownerReferences', value: [owner] } : { op: 'add', path: '/metadata/ownerReferences/-', value: owner },
    { op: 'remove', path: ANNOTATION_PATH },
  ] });
  context.events.event(postgresql, {
    type: 'Normal', reason: 'DataClaimAdopted', action: 'Adopt',
    note: `the data claim ${meta.name ?? ''}, kept when the operator was uninstalled, is this PostgreSQL's again; the data on it is served as it is`,
  });
  return adopted;
}

function annotate(claim: V1PersistentVolumeClaim, postgresqlName: string): JsonPatchOperation {
  return claim.metadata?.annotations === undefined
    ? { op: 'add', path: '/metadata/annotations', value: { [KEPT_DATA_OF_ANNOTATION]: postgresqlName } }
    : { op: 'add', path: ANNOTATION_PATH, value: postgresqlName };
}
