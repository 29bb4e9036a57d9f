// Public API of @k8s-operators/controller-core.

export {
  ItemExponentialBackoff,
  type ItemBackoff,
  type ItemExponentialBackoffOptions,
} from './queue/item-backoff.ts';
export {
  MAX_REASONS_PER_KEY,
  type QueueReason,
  type QueueReasonInput,
  type QueueReasonSource,
} from './queue/queue-reasons.ts';
export { WorkQueue, type QueueItem, type WorkQueueOptions, type WorkQueueSnapshot } from './queue/work-queue.ts';

export { createMetrics, type ControllerCoreMetrics, type ReconcileResult } from './metrics/create-metrics.ts';
export type { InformerMetrics } from './metrics/informer-metrics.ts';
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
export { NonStructuralSchemaError, toStructuralSchema, type OpenApiSchema } from './crd/structural-schema.ts';
export { conditionsSchema, type ConditionsSchemaOptions } from './crd/conditions-schema.ts';
export { crdManifest, type CustomResourceDefinitionManifest } from './crd/crd-manifest.ts';
export { AGE_COLUMN, READY_COLUMN, REASON_COLUMN } from './crd/printer-columns.ts';
export { crdDiff, crdFileName, renderCrdYaml, writeCrds, type RenderCrdOptions } from './crd/render-crd.ts';

export {
  DEFAULT_REDACT_PATHS,
  REDACTED,
  createLogger,
  reconcileLogger,
  redactSecretData,
  type CreateLoggerOptions,
  type ReconcileLogContext,
} from './log.ts';
