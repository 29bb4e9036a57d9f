/**
 * Labels on the objects a PostgreSQL owns and on its pods.
 *
 * Pods carry the seed's labels (`name: <postgresql>`, `managedBy: postgresql-operator`) for users' own selectors,
 * and the operator's own key `exp.wheel.jp/postgresql`, which is what the Deployment and the Service select: `name` is
 * a common key that other apps' pods may carry too.
 */

/** Which PostgreSQL an object or pod belongs to (its `metadata.name`). */
export const INSTANCE_LABEL = 'exp.wheel.jp/postgresql';

/** The original operator's pod labels, kept for users' own selectors. */
export const NAME_LABEL = 'name';
export const MANAGED_BY_LABEL = 'managedBy';
export const MANAGED_BY = 'postgresql-operator';

/**
 * Set on a pod once its database holds its restored data (or needed no restore), as in the seed. The Service selects
 * only pods carrying it, so no client ever reaches a database that has not been restored.
 */
export const APP_READY_LABEL = 'appReady';
export const APP_READY_VALUE = 'ok';

/** Labels every object of one PostgreSQL carries, pods included. */
export function instanceLabels(name: string): Record<string, string> {
  return {
    [NAME_LABEL]: name,
    [MANAGED_BY_LABEL]: MANAGED_BY,
    [INSTANCE_LABEL]: name,
    'app.kubernetes.io/name': 'postgresql',
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/managed-by': MANAGED_BY,
  };
}

/** The Deployment's selector: every pod of the PostgreSQL, restored or not. It cannot change once created. */
export function podSelector(name: string): Record<string, string> {
  return { [INSTANCE_LABEL]: name };
}

/** The Service's selector: pods of the PostgreSQL whose database is restored. */
export function servingSelector(name: string): Record<string, string> {
  return { ...podSelector(name), [APP_READY_LABEL]: APP_READY_VALUE };
}
