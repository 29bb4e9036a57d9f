import { nextStatus, READY_CONDITION } from '@k8s-operators/controller-core';
import type { AhvVm, AhvVmStatus } from '../api/ahvvm-resource.ts';

/**
 * The two conditions every AhvVm carries, with Crossplane's meanings, which Kubernetes users of cloud resources know:
 *
 * - `Ready`: the VM exists in Prism, is idle, and matches the spec. Otherwise `False` with the reason why not
 *   (`Creating`, `Updating`, `PowerCycleRequired`, `AuthenticationFailed` …), which `kubectl get avm` shows.
 * - `Synced`: the last reconcile did its job. `False` only when something failed (Prism unreachable, credentials
 *   refused, a task failed, bad configuration); waiting for a task or for consent is not a failure.
 */
export const SYNCED_CONDITION = 'Synced';

/** Condition reasons. Those of `desiredVmSpec`, `findOwnedVm` and `planUpdate` are used as they come. */
export const Reason = {
  Available: 'Available',
  ReconcileSuccess: 'ReconcileSuccess',
  Creating: 'Creating',
  Recreating: 'Recreating',
  Updating: 'Updating',
  PoweringOff: 'PoweringOff',
  PoweringOn: 'PoweringOn',
  Deleting: 'Deleting',
  TaskInProgress: 'TaskInProgress',
  TaskFailed: 'TaskFailed',
  ConfigurationError: 'ConfigurationError',
  AuthenticationFailed: 'AuthenticationFailed',
  TLSVerificationFailed: 'TLSVerificationFailed',
  PrismUnavailable: 'PrismUnavailable',
  PrismRequestFailed: 'PrismRequestFailed',
  RateLimited: 'RateLimited',
  CloudInitSecretNotFound: 'CloudInitSecretNotFound',
} as const;

/** What a reconcile found, as the conditions will say it. */
export interface Outcome {
  /** The Ready reason when not available; the Synced reason when failed. */
  reason: string;
  message: string;
  /** The VM exists, is idle and matches the spec: `Ready=True`. */
  available: boolean;
  /** Something went wrong, not just "not there yet": `Synced=False`. */
  failed: boolean;
}

export function available(message: string): Outcome {
  return { reason: Reason.Available, message, available: true, failed: false };
}

/** On its way (creating, updating, waiting for a task) or held back on purpose (consent, a name in use). */
export function pending(reason: string, message: string): Outcome {
  return { reason, message, available: false, failed: false };
}

export function failed(reason: string, message: string): Outcome {
  return { reason, message, available: false, failed: true };
}

/** Status fields the reconciler sets; `undefined` removes a field. */
export type StatusFields = { [K in keyof AhvVmStatus]?: AhvVmStatus[K] | undefined };

/**
 * The status after `outcome`: `fields` over the current status, `observedGeneration` at the resource's generation,
 * and both conditions (their `lastTransitionTime` moves only when their status does).
 */
export function desiredAhvVmStatus(avm: AhvVm, outcome: Outcome, fields: StatusFields, now: Date): AhvVmStatus {
  const generation = avm.metadata.generation;
  return nextStatus<AhvVmStatus>(avm.status, {
    fields,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions: [
      outcome.available
        ? { type: READY_CONDITION, status: 'True', reason: Reason.Available, message: outcome.message }
        : { type: READY_CONDITION, status: 'False', reason: outcome.reason, message: outcome.message },
      outcome.failed
        ? { type: SYNCED_CONDITION, status: 'False', reason: outcome.reason, message: outcome.message }
        : { type: SYNCED_CONDITION, status: 'True', reason: Reason.ReconcileSuccess, message: '' },
    ],
    now,
  });
}

/** The reason the Ready condition gives now, to tell a new situation from a repeated one (for Events). */
export function readyReasonOf(avm: AhvVm): string | undefined {
  return avm.status?.conditions?.find((c) => c.type === READY_CONDITION)?.reason;
}
