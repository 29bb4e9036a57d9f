/**
 * Labels of the objects a MaintPage owns. The Service selects pods by the operator's own keys, never by `app`:
 * `app=<cr-name>` on the maintenance pods would also match any other pod with that label, and both sets when the
 * MaintPage and the app have the same name. `app` is still set as the original operator set it, for users' own
 * selectors and dashboards.
 */

/** Which MaintPage an object belongs to (its `metadata.name`). */
export const INSTANCE_LABEL = 'maintpage.example.com/instance';
/** Which pod set an object belongs to: `app` or `maintenance`. */
export const ROLE_LABEL = 'maintpage.example.com/role';
/** The original operator's label, kept for users' selectors: `<appname>` on app pods, `<cr-name>` on maintenance pods. */
export const APP_LABEL = 'app';

/** The two pod sets the Service can send traffic to. */
export type Target = 'app' | 'maintenance';

/** The selector of one pod set of one MaintPage: the Service's selector and the Deployment's. */
export function selectorFor(instance: string, target: Target): Record<string, string> {
  return { [INSTANCE_LABEL]: instance, [ROLE_LABEL]: target };
}

/**
 * The pod set a Service selector points at, when it is exactly one of this MaintPage's two selectors; `undefined`
 * for anything else (no selector yet, a hand-edited one, the seed's `app=` selector).
 */
export function targetOfSelector(
  instance: string,
  selector: Readonly<Record<string, string>> | undefined,
): Target | undefined {
  if (selector === undefined) return undefined;
  const keys = Object.keys(selector);
  const role = selector[ROLE_LABEL];
  if (keys.length !== 2 || selector[INSTANCE_LABEL] !== instance) return undefined;
  return role === 'app' || role === 'maintenance' ? role : undefined;
}
