import {
  AGE_COLUMN,
  READY_COLUMN,
  REASON_COLUMN,
  defineCustomResource,
  type CustomResource,
  type CustomResourceSpec,
  type CustomResourceStatus,
} from '@k8s-operators/controller-core';
import { MAINTPAGE } from './maintpage-ref.ts';
import { MaintPageSpecSchema } from './maintpage-spec.ts';
import { MaintPageStatusSchema } from './maintpage-status.ts';

/**
 * `maintpage.example.com/v1alpha1` `MaintPage`: the seed's group, version and kind. For CRD generation and tooling;
 * the operator reaches MaintPages through MaintPageRef (maintpage-ref.ts) and never loads this schema.
 */
export const MaintPageResource = defineCustomResource({
  group: MAINTPAGE.group,
  kind: MAINTPAGE.kind,
  plural: MAINTPAGE.plural,
  shortNames: ['mp'],
  categories: ['k8s-operators'],
  scope: 'Namespaced',
  description:
    "MaintPage runs an app (a Deployment and a Service) and a maintenance page, and switches the app's Service to " +
    'the maintenance page while maintenance is on.',
  versions: [
    {
      name: MAINTPAGE.version,
      spec: MaintPageSpecSchema,
      status: MaintPageStatusSchema,
      printerColumns: [
        {
          name: 'Toggle',
          type: 'boolean',
          jsonPath: '.spec.maintpageconfig.maintpagetoggle',
          description: 'maintpagetoggle as set in the spec',
        },
        {
          name: 'Published',
          type: 'string',
          jsonPath: '.status.maintpublishstatus',
          description: 'Whether the Service sends traffic to the maintenance page now',
        },
        READY_COLUMN,
        REASON_COLUMN,
        AGE_COLUMN,
      ],
    },
  ],
});

export type MaintPage = CustomResource<typeof MaintPageResource>;
export type MaintPageSpec = CustomResourceSpec<typeof MaintPageResource>;
export type MaintPageStatus = CustomResourceStatus<typeof MaintPageResource>;
