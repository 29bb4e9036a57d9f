import { requiredName } from '@k8s-operators/controller-core';
import type { MaintPage } from './maintpage-resource.ts';
import type { ResolvedMaintPage } from './resolved-maintpage.ts';

/**
 * Names of the objects a MaintPage owns. The app's Deployment and Service are named `appname`, as in the seed; the
 * maintenance page Deployment `<cr-name>-maintpage`.
 */

/** The app's Deployment, its Service, and the app container are all named `appname`. */
export function appName(maintPage: ResolvedMaintPage): string {
  return maintPage.spec.appconfig.appname;
}

/** Reads only the MaintPage's name, so that resolveMaintPage can tell an appname that collides with it. */
export function maintenanceDeploymentName(maintPage: Pick<MaintPage, 'metadata'>): string {
  return `${requiredName(maintPage)}-maintpage`;
}

/** The ConfigMap holding `page.html` when the page is given inline. */
export function pageHtmlConfigMapName(maintPage: ResolvedMaintPage): string {
  return `${requiredName(maintPage)}-maintpage-html`;
}
