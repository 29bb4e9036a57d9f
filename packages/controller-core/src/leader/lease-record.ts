import type { KubernetesObject } from '@kubernetes/client-node';
import { defineResource } from '../client/resources.ts';

/** A coordination.k8s.io/v1 Lease as JSON (client-node types its MicroTimes as classes; on the wire they are strings). */
export interface Lease extends KubernetesObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export const LeaseResource = defineResource<Lease>({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true });

/** Lease times are MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** What identifies one observation of the record; a change means the holder is alive (client-go compares raw records). */
export function recordFingerprint(lease: Lease): string {
  const spec = lease.spec ?? {};
  return JSON.stringify([spec.holderIdentity ?? '', spec.leaseDurationSeconds ?? 0, spec.acquireTime ?? '', spec.renewTime ?? '', spec.leaseTransitions ?? 0]);
}
