import { Resources, type KubeClient } from '@k8s-operators/controller-core';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { RestoreCheckQuery, RestoreCheckSource } from '../api/resolved-postgresql-spec.ts';
import { MAX_CHECK_TEXT, RESTORE_CHECK_EXPECT_KEY, RESTORE_CHECK_QUERY_KEY } from '../api/restore-check.ts';
import { getNamedObject } from './get-named-object.ts';

/**
 * The check a drill runs, from the spec or from the ConfigMap `spec.backup.verify.check.configMapRef` names. The
 * ConfigMap is read with `get` when a drill starts (the operator watches no ConfigMaps), so an edit counts from the
 * next drill. One that is missing or incomplete is no fault of the backup: the drill does not run, and the message
 * says what to put where.
 */

export type RestoreCheckLookup = { ok: true; check?: RestoreCheckQuery } | { ok: false; message: string };

const FIELD = 'spec.backup.verify.check.configMapRef';

/** The check a ConfigMap holds, or what it lacks. */
export function checkFromConfigMap(name: string, namespace: string, configMap: V1ConfigMap | undefined): RestoreCheckLookup {
  const where = `ConfigMap ${name} (${FIELD}) in namespace ${namespace}`;
  const wanted = `data.${RESTORE_CHECK_QUERY_KEY} (the SQL query) and data.${RESTORE_CHECK_EXPECT_KEY} (its answer as psql -At prints it)`;
  if (configMap === undefined) return { ok: false, message: `${where} was not found: create it with ${wanted}` };
  const query = configMap.data?.[RESTORE_CHECK_QUERY_KEY];
  const expect = configMap.data?.[RESTORE_CHECK_EXPECT_KEY];
  if (query === undefined || query.trim() === '' || expect === undefined) {
    const missing = [query === undefined || query.trim() === '' ? `data.${RESTORE_CHECK_QUERY_KEY}` : undefined, expect === undefined ? `data.${RESTORE_CHECK_EXPECT_KEY}` : undefined].filter((key) => key !== undefined);
    return { ok: false, message: `${where} has no ${missing.join(' and no ')}: it needs ${wanted}` };
  }
  for (const [key, text] of [[RESTORE_CHECK_QUERY_KEY, query], [RESTORE_CHECK_EXPECT_KEY, expect]] as const) {
    if (text.length > MAX_CHECK_TEXT) return { ok: false, message: `data.${key} of ${where} is ${String(text.length)} characters long; a check is at most ${String(MAX_CHECK_TEXT)}` };
  }
  return { ok: true, check: { query, expect } };
}

/** The check of `source` (none: the row counts only), reading its ConfigMap from the API server if it has one. */
export async function readRestoreCheck(client: KubeClient, namespace: string, source: RestoreCheckSource | undefined): Promise<RestoreCheckLookup> {
  if (source === undefined) return { ok: true };
  if ('inline' in source) return { ok: true, check: source.inline };
  const configMap = await getNamedObject(client, Resources.ConfigMap, { namespace, name: source.configMap }, FIELD);
  return checkFromConfigMap(source.configMap, namespace, configMap);
}
