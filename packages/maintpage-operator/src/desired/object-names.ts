import { requiredName } from '@k8s-operators/controller-core';
import type { MaintPage } from '../api/maintpage-resource.ts';

/**
 * Names of the objects a MaintPage owns. The app's Deployment and Service are named `appname`, as in the seed; the
 * maintenance page Deployment `<cr-name>-maintpage`.
 */

/** The app's Deployment, its Service, and the app container are all named `appname`. */
export function appName(maintPage: MaintPage): string {
  return maintPage.spec.appconfig.appname;
}

export function maintenanceDeploymentName(maintPage: MaintPage): string {
  return `${requiredName(maintPage)}-maintpage`;
}

/** The ConfigMap holding `page.html` when the page is given inline. */
export function pageHtmlConfigMapName(maintPage: MaintPage): string {
  return `${requiredName(maintPage)}-maintpage-html`;
}
