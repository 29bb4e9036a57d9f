import { requiredName } from '@k8s-operators/controller-core';
import type { MaintPage } from '../api/maintpage-resource.ts';
import { parseRfc3339 } from '../schedule/rfc3339.ts';
import { appName, maintenanceDeploymentName } from '../desired/object-names.ts';

/**
 * What is wrong with a MaintPage that the CRD schema cannot catch, because its rules see only `spec`, not
 * `metadata.name`. A reconciler reports the problem as `Ready=False, reason InvalidSpec` and applies nothing, rather
 * than failing on every retry.
 */

/** Label values (the instance label carries the MaintPage name) allow at most 63 characters. */
const MAX_LABEL_VALUE_LENGTH = 63;

export function specProblem(maintPage: MaintPage): string | undefined {
  const name = requiredName(maintPage);
  if (name.length > MAX_LABEL_VALUE_LENGTH) {
    return (
      `metadata.name is ${name.length} characters long; a MaintPage name is used as a label value, which allows at ` +
      `most ${MAX_LABEL_VALUE_LENGTH}: recreate it with a shorter name`
    );
  }
  if (appName(maintPage) === maintenanceDeploymentName(maintPage)) {
    return (
      `spec.appconfig.appname "${appName(maintPage)}" is also the name of the maintenance page Deployment; ` +
      'choose another appname'
    );
  }
  // The CRD refuses malformed times; this catches an object stored while an older CRD was installed.
  const schedule = maintPage.spec.maintpageconfig?.schedule;
  for (const [field, value] of [['start', schedule?.start], ['end', schedule?.end]] as const) {
    if (value !== undefined && parseRfc3339(value) === undefined) {
      return `spec.maintpageconfig.schedule.${field} "${value}" is not an RFC 3339 time with a zone, such as 2026-03-01T22:00:00Z`;
    }
  }
  return undefined;
}
