import { conditionsSchema } from '@k8s-operators/controller-core/crd';
import { Type } from 'typebox';

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

export const MaintPageStatusSchema = Type.Object(
  {
    maintpublishstatus: Type.Optional(
      Type.Union([Type.Literal(PUBLISHED), Type.Literal(NOT_PUBLISHED)], {
        description:
          '"Published" while the Service sends traffic to the maintenance page, else "Not Published" (the seed\'s ' +
          'field). It changes only once the switch has happened, not when it is asked for.',
      }),
    ),
    conditions: Type.Optional(conditionsSchema()),
    observedGeneration: Type.Optional(
      Type.Integer({
        description: 'The metadata.generation this status was computed from.',
        format: 'int64',
        minimum: 0,
      }),
    ),
    appReadyReplicas: Type.Optional(
      Type.Integer({ description: 'App pods that are Ready.', format: 'int32', minimum: 0 }),
    ),
    maintenanceReadyReplicas: Type.Optional(
      Type.Integer({ description: 'Maintenance page pods that are Ready.', format: 'int32', minimum: 0 }),
    ),
    lastSwitchTime: Type.Optional(
      Type.String({
        description: 'When the Service last moved between the app and the maintenance page.',
        format: 'date-time',
      }),
    ),
  },
  { description: 'MaintPageStatus: what the Service serves now, and why.' },
);
