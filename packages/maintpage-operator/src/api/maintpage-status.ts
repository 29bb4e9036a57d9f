import { conditionsSchema } from '@k8s-operators/controller-core/crd';
import { Type } from 'typebox';
import { NOT_PUBLISHED, PUBLISHED } from './maintpage-status-values.ts';

export const MaintPageStatusSchema = Type.Object(
  {
    maintpublishstatus: Type.Optional(
      Type.Union([Type.Literal(PUBLISHED), Type.Literal(NOT_PUBLISHED)], {
        description:
          '"Published" while the Service sends traffic to the maintenance page, else "Not Published" (the original ' +
          "operator's field and values). It changes only once the switch has happened, not when it is asked for.",
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
    switchWantedTime: Type.Optional(
      Type.String({
        description:
          'When the controller first saw that the Service should move to the other pod set (toggle or schedule), ' +
          'while the move waits for a Ready pod there; removed once the Service has moved or need not. Kept in ' +
          'status rather than in the operator\'s memory so that a new leader goes on timing the same wait.',
        format: 'date-time',
      }),
    ),
  },
  { description: 'MaintPageStatus: what the Service serves now, and why.' },
);
