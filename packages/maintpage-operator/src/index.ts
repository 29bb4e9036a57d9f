// Public API of @k8s-operators/maintpage-operator: the MaintPage API, and the pure functions a reconciler is built on.
// The page server is a separate program (page-server/main.ts), not part of this API.

export { MaintPageResource, type MaintPage, type MaintPageSpec, type MaintPageStatus } from './api/maintpage-resource.ts';
export { MaintPageRef } from './api/maintpage-ref.ts';
export {
  MaintPageConditionType,
  MaintPageReason,
  NOT_PUBLISHED,
  PUBLISHED,
  type PublishStatus,
} from './api/maintpage-status-values.ts';
export {
  DEFAULT_IMAGE_CHANGE_POLICY,
  DEFAULT_PAGE_MESSAGE,
  DEFAULT_PORT,
  DEFAULT_REPLICAS,
  DEFAULT_RETRY_AFTER_SECONDS,
  MAX_INLINE_HTML_LENGTH,
  type ImageChangePolicy,
} from './api/defaults.ts';

export {
  resolveMaintPage,
  resolveMaintenanceWindow,
  type MaintPageResolution,
  type MaintenanceWindowResolution,
  type ResolvedMaintPage,
  type ResolvedMaintPageSpec,
  type ResolvedMaintenanceWindow,
  type WindowBound,
} from './api/resolved-maintpage.ts';
export { isWindowOpen, nextWindowBoundary } from './schedule/maintenance-window.ts';
export { parseRfc3339 } from './api/rfc3339.ts';

export { INSTANCE_LABEL, ROLE_LABEL, APP_LABEL, selectorFor, targetOfSelector, type Target } from './desired/labels.ts';
export {
  appName,
  maintenanceDeploymentName,
  pageHtmlConfigMapName,
} from './api/object-names.ts';
export { desiredAppDeployment } from './desired/desired-app-deployment.ts';
export {
  MAINTENANCE_CONTAINER_NAME,
  desiredMaintenanceDeployment,
  type MaintenanceDeploymentOptions,
} from './desired/desired-maintenance-deployment.ts';
export { desiredPageHtmlConfigMap } from './desired/desired-page-html.ts';
export { SERVICE_PORT, SERVICE_PORT_NAME, desiredService } from './desired/desired-service.ts';
export {
  APPLIED_APP_IMAGE_ANNOTATION,
  appImageToApply,
  detectAppImageChange,
  type AppImageChange,
} from './desired/app-image.ts';
export {
  detectDrift,
  detectServiceSelectorChange,
  type Drift,
  type DriftEvent,
  type ObservedObjects,
  type SelectorChange,
} from './desired/drift.ts';
export {
  WAITING_REQUEUE_MS,
  decideSwitch,
  isMaintenanceWanted,
  type ObservedState,
  type Switch,
  type SwitchDecision,
} from './desired/switch-decision.ts';
export {
  blockedOutcome,
  desiredMaintPageStatus,
  invalidSpecOutcome,
  switchLatencySeconds,
  type StatusOutcome,
} from './desired/desired-maintpage-status.ts';

export { FIELD_MANAGER, setupMaintPageController, type MaintPageControllerOptions } from './controller/maintpage-controller.ts';
export { registerMaintPageMetrics, type MaintPageMetrics } from './metrics/maintpage-metrics.ts';
