// Public API of the nutanix-ahvvm-operator: the AhvVm API, the operator's VM model and the pure logic that turns an
// AhvVm into a desired VM and decides how to change one, the Prism Central v3 and v4 clients and the adapters that
// speak the model over each, and the controller built on them. main.ts is the process.

export { AhvVmRef } from './api/ahvvm-ref.ts';
export { AhvVmResource, AhvVmSpecSchema, AhvVmStatusSchema, type AhvVm, type AhvVmSpec, type AhvVmStatus } from './api/ahvvm-resource.ts';
export { AHVVM_LIMITS, AHVVM_SPEC_DEFAULTS, DEFAULT_USER_DATA_KEY } from './api/ahvvm-limits.ts';
export { resolveAhvVmSpec, type ResolvedAhvVmSpec } from './api/resolved-ahvvm-spec.ts';

export { DEFAULT_PRISM_PORT, PrismConfigError, loadPrismConfig, type PrismConfig } from './config/prism-config.ts';
export { API_KEY_HEADER, PrismApiKey, PrismCredentials, type PrismAuthentication } from './config/prism-credentials.ts';

export { ABSENT_STATE, registerAhvVmMetrics, type AhvVmMetrics } from './metrics/ahvvm-metrics.ts';

export { LIST_PAGE_LENGTH, PrismClient, taskUuidOf, type CreatedVm } from './prism/v3/prism-client.ts';
export type { PrismClientOptions, WaitForTaskOptions } from './prism/prism-client-options.ts';
export {
  CLUSTERMGMT_CONFIG_PATH,
  NETWORKING_CONFIG_PATH,
  PRISM_CONFIG_PATH,
  PrismV4Client,
  V4_LIST_LIMIT,
  VMM_CONFIG_PATH,
  VMM_CONTENT_PATH,
  VM_ENTITY_REL,
  isStaleEtag,
  vmExtIdOf,
  type PrismV4AppMessage,
  type PrismV4InventoryEntity,
  type PrismV4PowerAction,
  type PrismV4Task,
  type PrismV4Vm,
  type PrismV4VmInput,
} from './prism/v4/prism-v4-client.ts';
export {
  DEFAULT_MAX_CONCURRENT_REQUESTS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  PRISM_API_PATH,
  type PrismHttpOptions,
} from './prism/prism-http.ts';
export {
  PrismApiError,
  PrismAuthenticationError,
  PrismError,
  PrismRateLimitedError,
  PrismTaskTimeoutError,
  PrismTlsError,
  PrismTransportError,
  type PrismErrorMessage,
} from './prism/prism-errors.ts';
export { EDIT_CONFLICT_REASON, isEditConflict } from './prism/edit-conflict.ts';
export { NO_PRISM_METRICS, type PrismMetricsSink } from './prism/prism-metrics-sink.ts';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './prism/retry-policy.ts';
export type {
  PrismDisk,
  PrismInventoryEntity,
  PrismNic,
  PrismReference,
  PrismTask,
  PrismVm,
  PrismVmIntent,
  PrismVmMetadata,
  PrismVmResources,
  PrismVmSpec,
} from './prism/v3/prism-types.ts';
export { applyDesiredToCurrentSpec, putBodyFor, withPowerState } from './prism/v3/v3-put-body.ts';

export {
  BUSY_VM_STATES,
  actualPowerState,
  type DesiredDisk,
  type DesiredNic,
  type DesiredVm,
  type ObservedDisk,
  type ObservedNic,
  type ObservedVm,
  type PowerState,
} from './vm/vm-model.ts';
export { NO_CHANGES, diffVm, type DeviceChange, type FieldChange, type VmDiff } from './vm/vm-diff.ts';
export { describeChanges, planUpdate, type PlanUpdateOptions, type UpdatePlan, type UpdateStep } from './vm/update-plan.ts';
export { TERMINAL_TASK_STATUSES, isTaskFinished, type VmTask } from './vm/vm-task.ts';
export type {
  CreateAccepted,
  InventoryLookupOptions,
  PreparationProblem,
  PrismApiSetting,
  PrismApiVersion,
  PrismEntityKind,
  PrismVmApi,
} from './vm/prism-vm-api.ts';

export {
  MAX_USER_DATA_BASE64_LENGTH,
  desiredVmSpec,
  namesToResolve,
  withCloudInitUserData,
  type AhvVmIdentity,
  type DesiredVmContext,
  type DesiredVmFailureReason,
  type DesiredVmResult,
  type ResolveEntityName,
} from './desired/desired-vm.ts';
export { findOwnedVm, type OwnedVmLookup } from './controller/find-owned-vm.ts';
export { descriptionWithOwnerMarker, ownerUidOf } from './desired/ownership-marker.ts';
export { observedVmStatus, type ObservedVmStatus } from './desired/observed-vm-status.ts';

export { setupAhvVmController, type AhvVmControllerOptions } from './controller/ahvvm-controller.ts';
export { AhvVmReconciler, FIELD_MANAGER, FINALIZER, type AhvVmReconcilerOptions } from './controller/ahvvm-reconciler.ts';
export { DEFAULT_INTERVALS, type ReconcileIntervals } from './controller/requeue-timing.ts';
export { Reason, SYNCED_CONDITION, type Outcome } from './desired/desired-ahvvm-status.ts';
export { connectToPrism, type PrismConnection } from './controller/prism-connection.ts';
export { PrismAccessGate, type PrismAccessGateOptions } from './controller/prism-access-gate.ts';
