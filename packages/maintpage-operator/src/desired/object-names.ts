import type { MaintPage } from '../api/maintpage-resource.ts';

/**
 * Names of a MaintPage and of the objects it owns. The app's Deployment and Service are named `appname`, as in the
 * seed; the maintenance page Deployment `<cr-name>-maintpage`.
 */

function required(value: string | undefined, field: string): string {
  if (value === undefined || value === '') {
    throw new Error(`MaintPage has no ${field}; pass the object as read from the API server`);
  }
  return value;
}

export function instanceName(maintPage: MaintPage): string {
  return required(maintPage.metadata.name, 'metadata.name');
}

export function instanceNamespace(maintPage: MaintPage): string {
  return required(maintPage.metadata.namespace, 'metadata.namespace');
}

/** The app's Deployment, its Service, and the app container are all named `appname`. */
export function appName(maintPage: MaintPage): string {
  return maintPage.spec.appconfig.appname;
}

export function maintenanceDeploymentName(maintPage: MaintPage): string {
  return `${instanceName(maintPage)}-maintpage`;
}

/** The ConfigMap holding `page.html` when the page is given inline. */
export function pageHtmlConfigMapName(maintPage: MaintPage): string {
  return `${instanceName(maintPage)}-maintpage-html`;
}
