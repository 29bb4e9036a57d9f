// Public API of @k8s-operators/controller-core.

export {
  ItemExponentialBackoff,
  exponentialDelayMs,
  type ExponentialDelay,
  type ItemBackoff,
  type ItemExponentialBackoffOptions,
} from './queue/item-backoff.ts';
export {
  MAX_REASONS_PER_KEY,
  type QueueReason,
  type QueueReasonInput,
  type QueueReasonSource,
} from './queue/queue-reasons.ts';
export { LOW_PRIORITY, WorkQueue, type QueueItem, type WorkQueueOptions, type WorkQueueSnapshot } from './queue/work-queue.ts';

export { createMetrics, type ControllerCoreMetrics, type ReconcileResult as ReconcileResultLabel } from './metrics/create-metrics.ts';
export type { InformerMetrics } from './metrics/informer-metrics.ts';
export { metricsOn, type MetricDefinitions } from './metrics/metric-definitions.ts';
export type { WorkQueueMetrics, WorkQueueMetricsProvider, WorkQueueState } from './metrics/workqueue-metrics.ts';
export {
  RECONCILE_TIME_BUCKETS,
  REST_CLIENT_DURATION_BUCKETS,
  WORKQUEUE_DURATION_BUCKETS,
} from './metrics/buckets.ts';

export {
  READY_CONDITION,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
  type ConditionStatus,
  type NewCondition,
} from './conditions.ts';

export {
  controllerReference,
  getControllerOf,
  isControlledBy,
  withControllerReference,
  type ControllerReferenceOptions,
  type OwnerReference,
} from './objects/owner-references.ts';
export { hasFinalizer, withFinalizer, withoutFinalizer } from './objects/finalizers.ts';
export { objectKey, parseObjectKey, type ObjectKey } from './objects/object-key.ts';
export { requiredName, requiredNamespace } from './objects/required-metadata.ts';
export { ownedMetadata, type DesiredObject, type NamedMetadata, type OwnedObjectMetadata } from './objects/owned-metadata.ts';
export {
  restrictedContainerSecurityContext,
  restrictedPodSecurityContext,
  type RestrictedContainerOptions,
  type RestrictedPodOptions,
} from './objects/restricted-security-contexts.ts';
export { metav1Time, parseMetav1Time } from './objects/metav1-time.ts';

export {
  defineCustomResource,
  type CustomResource,
  type CustomResourceDeclaration,
  type CustomResourceOptions,
  type CustomResourceSpec,
  type CustomResourceStatus,
  type CustomResourceVersion,
  type PrinterColumn,
} from './crd/define-custom-resource.ts';
export { customResourceRef } from './crd/custom-resource-ref.ts';
export { kindBeingRemoved } from './crd/kind-being-removed.ts';
export { NonStructuralSchemaError, toStructuralSchema, type OpenApiSchema } from './crd/structural-schema.ts';
export { crdManifest, type CustomResourceDefinitionManifest } from './crd/crd-manifest.ts';
export { AGE_COLUMN, READY_COLUMN, REASON_COLUMN } from './crd/printer-columns.ts';

export {
  DEFAULT_REDACT_PATHS,
  REDACTED,
  createLogger,
  reconcileLogger,
  redactSecretData,
  type CreateLoggerOptions,
  type ReconcileLogContext,
} from './log.ts';

export { outsideRequestScope, requestSignal, withRequestSignal } from './client/request-scope.ts';
export { KubeClient, type ApplyConfiguration, type ApplyOptions, type DeleteOptions, type GetOptions, type JsonPatchOperation, type KubeClientOptions, type ListOptions, type ObjectList, type Patch, type WatchOptions as ClientWatchOptions, type WriteOptions } from './client/kube-client.ts';
export { resourcePath } from './client/resource-path.ts';
export { loadClusterAuth, type LoadOptions as ClusterAuthLoadOptions } from './client/kubeconfig/load-cluster-auth.ts';
export type { AuthHeaders, ClusterAuth } from './client/kubeconfig/cluster-auth.ts';
export { ApiError, isAlreadyExists, isConflict, isForbidden, isGone, isInvalid, isNotFound, isTooManyRequests, isUnauthorized, type StatusBody, type StatusReason } from './client/errors.ts';
export { Resources, apiVersionOf, defineResource, groupResourceOf, type ObjectOf, type Plain, type ResourceRef } from './client/resources.ts';
export { apiDidNotAnswer, untilApiAnswers, type UntilApiAnswersOptions } from './manager/until-api-answers.ts';
export { RETRY_AFTER_LIMITS, parseRetryAfter, retryOnConflict, type RetryOnConflictOptions } from './client/retry.ts';
export type { RequestCounts, RequestVerb, RestClientMetricsSink } from './client/rest-metrics.ts';
export type { WatchEvent } from './client/watch-stream.ts';

export { SharedInformerFactory, type InformerFactoryOptions } from './informer/informer-factory.ts';
export { SharedInformer, type InformerEventHandler, type InformerHealth, type InformerLogger, type InformerMetricsSink, type SharedInformerOptions } from './informer/shared-informer.ts';
export { stripManagedFields, type ObjectTransform } from './informer/transform.ts';
export type { ReadonlyCache } from './informer/cache.ts';
export { CONTROLLER_OWNER_INDEX, NAMESPACE_INDEX, type IndexFunc } from './informer/indexer.ts';
export type { InformerScope, WatchEndReason } from './informer/reflector.ts';

export { Controller, ReconcilesStillRunning, type ControllerOptions } from './controller/controller.ts';
export { ControllerBuilder, type ControllerSettings, type MapToKeys, type WatchOptions as ControllerWatchOptions } from './controller/builder.ts';
export { TerminalError, type ReconcileContext, type ReconcileRequest, type ReconcileResult, type Reconciler } from './controller/reconciler.ts';
export { asReconciler, type ObjectGetter, type ObjectReconciler } from './controller/object-reconciler.ts';
export { and, annotationsChanged, generationChanged, hasLabels, labelsChanged, not, or, resourceVersionChanged, type Predicate } from './controller/predicates.ts';

export { LeaderElector, type LeaderElectionOptions } from './leader/leader-elector.ts';
export { Manager, type ManagerOptions } from './manager/manager.ts';
export { MetricsAuthorizer, type MetricsAuthOptions, type Refusal } from './manager/metrics-auth.ts';
export { CacheReader, type CacheListOptions, type CacheReadOptions } from './manager/cache-reader.ts';
export { podName } from './manager/pod-name.ts';
export { podNamespace } from './manager/pod-namespace.ts';
export { TokenAuthenticator, type Authentication, type TokenAuthenticatorOptions, type UserInfo } from './auth/token-authenticator.ts';
export { selfSignedCertificate, type SelfSignedOptions, type ServingCertificate } from './manager/self-signed-certificate.ts';

export { APPLIED_HASH_ANNOTATION, applyOwned, containsDesired, ownershipConflict, type ApplyOwnedOptions } from './writes/apply-owned.ts';
export { StatusWriter, nextStatus, type ConditionedStatus, type StatusUpdate, type StatusWriteOptions, type StatusWriterOptions } from './writes/status-writer.ts';
export { OwnWrites, type MergePatch, type OwnWritesOptions } from './writes/own-writes.ts';
export { ensureFinalizer, removeFinalizer } from './writes/finalizers.ts';
export { EventRecorder, type EventDetails, type EventRecorderOptions, type EventType } from './writes/event-recorder.ts';
export { jsonEqual } from './writes/json-equal.ts';
export { FlagError, LOG_LEVELS, MANAGER_FLAG_OPTIONS, MANAGER_FLAG_USAGE, flagsOrExit, managerFlags, managerOptionsFrom, parseCommandLine, type LogLevel, type ManagerFlags } from './manager/manager-flags.ts';
