/**
 * The words MaintPage's status is written in: `maintpublishstatus` values, condition types and reasons. Kept apart
 * from the TypeBox schema in maintpage-status.ts, which takes the `maintpublishstatus` values from here, so the
 * controller that writes them loads no schema code.
 */

/** The seed's `status.maintpublishstatus` values, kept word for word for scripts that read them. */
export const PUBLISHED = 'Published';
export const NOT_PUBLISHED = 'Not Published';
export type PublishStatus = typeof PUBLISHED | typeof NOT_PUBLISHED;

/** Condition types of `status.conditions`. */
export const MaintPageConditionType = {
  /** The Service serves what the spec asks for (app or maintenance page) and at least one of those pods is Ready. */
  Ready: 'Ready',
  /** The Service selects the maintenance page pods. */
  Published: 'Published',
  /** A switch is waiting for Ready pods, or the pods the Service selects are not Ready yet. */
  Progressing: 'Progressing',
} as const;

/** Reasons of those conditions; CamelCase words a user can search for. */
export const MaintPageReason = {
  ServingApp: 'ServingApp',
  ServingMaintenancePage: 'ServingMaintenancePage',
  WaitingForMaintenancePods: 'WaitingForMaintenancePods',
  WaitingForAppPods: 'WaitingForAppPods',
  InvalidSpec: 'InvalidSpec',
  /** An object the MaintPage would own (its Deployment or Service name) already exists and belongs to someone else. */
  Conflict: 'Conflict',
} as const;
export type MaintPageReason = (typeof MaintPageReason)[keyof typeof MaintPageReason];
