import { type DesiredObject, ownedMetadata, requiredName } from '@k8s-operators/controller-core';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { ResolvedMaintPage } from '../api/resolved-maintpage.ts';
import { PAGE_HTML_KEY } from './desired-maintenance-deployment.ts';
import { INSTANCE_LABEL, ROLE_LABEL } from './labels.ts';
import { pageHtmlConfigMapName } from '../api/object-names.ts';

/**
 * The ConfigMap that carries `page.html` given inline to the built-in page server's pods, or `undefined` when there
 * is none to have (no inline page, or a user image serves the page); a reconciler deletes a leftover one.
 */
export function desiredPageHtmlConfigMap(maintPage: ResolvedMaintPage): DesiredObject<V1ConfigMap> | undefined {
  const config = maintPage.spec.maintpageconfig;
  const { html } = config.page;
  if (html === undefined || config.maintpageimage !== undefined) return undefined;
  const instance = requiredName(maintPage);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: ownedMetadata(maintPage, {
      name: pageHtmlConfigMapName(maintPage),
      labels: { [INSTANCE_LABEL]: instance, [ROLE_LABEL]: 'maintenance' },
    }),
    data: { [PAGE_HTML_KEY]: html },
  };
}
