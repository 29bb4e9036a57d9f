import type { V1Pod } from '@kubernetes/client-node';
import { APP_READY_LABEL, APP_READY_VALUE } from '../desired/labels.ts';

/**
 * What the pods of one PostgreSQL are doing, from the pod informer's cache. Pure, so the rules that decide which pod
 * is restored and which one backups read from are tested without a cluster.
 */

export function isPodReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export function isTerminating(pod: V1Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined;
}

export function isAppReady(pod: V1Pod): boolean {
  return pod.metadata?.labels?.[APP_READY_LABEL] === APP_READY_VALUE;
}

/** The pod's address, once it has one. */
export function podAddress(pod: V1Pod): string | undefined {
  const ip = pod.status?.podIP;
  return ip === undefined || ip === '' ? undefined : ip;
}

/** A pod that answers: Running, Ready, with an address, and not on its way out. */
export function isLive(pod: V1Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod) && !isTerminating(pod) && podAddress(pod) !== undefined;
}

/**
 * The pod clients are sent to: live and labelled `appReady=ok`. Backups read from it and only from it: a pod without
 * the label may be empty or half restored. With `Recreate` there is at most one; the oldest wins if there were more.
 */
export function servingPod(pods: readonly V1Pod[]): V1Pod | undefined {
  return oldestFirst(pods.filter((pod) => isLive(pod) && isAppReady(pod)))[0];
}

/** Live pods not yet labelled `appReady=ok`: their database must be examined (and maybe restored) first. */
export function podsAwaitingRestore(pods: readonly V1Pod[]): V1Pod[] {
  return oldestFirst(pods.filter((pod) => isLive(pod) && !isAppReady(pod)));
}

function oldestFirst(pods: V1Pod[]): V1Pod[] {
  const created = (pod: V1Pod): number => new Date(pod.metadata?.creationTimestamp ?? 0).getTime();
  return pods.sort((a, b) => created(a) - created(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}
