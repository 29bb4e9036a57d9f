import { parseMetav1Time } from '@k8s-operators/controller-core';
import { PostgreSQLConditionType } from '../api/postgresql-conditions.ts';
import type { PostgreSQLStatus } from '../api/postgresql-resource.ts';
import { NOT_YET_CHECKED } from '../desired/restore-check-status.ts';
import type { DatabaseStatusFigures } from '../metrics/postgresql-metrics.ts';

/**
 * The per-database gauges read off the PostgreSQL's status as the postgresql controller writes it, set with that write
 * so a gauge never says other than the conditions do:
 * - since when a first restore drill is owed: the NotYetChecked BackupRestorable condition's transition time;
 * - whether a new pod's restore is blocked: the Restored condition False (it failed, found no usable backup, or was
 *   refused for the tools or the dump's major), which stays so while a refused restore waits for its inputs to change,
 *   long after the restores counter stopped moving.
 */
export function statusFigures(status: PostgreSQLStatus): DatabaseStatusFigures {
  const condition = (type: string) => status.conditions?.find((c) => c.type === type);
  const restorable = condition(PostgreSQLConditionType.BackupRestorable);
  const pendingSince = restorable?.reason === NOT_YET_CHECKED.reason ? parseMetav1Time(restorable.lastTransitionTime) : undefined;
  return {
    ...(pendingSince === undefined ? {} : { restoreCheckPendingSinceSeconds: pendingSince.getTime() / 1000 }),
    restoreBlocked: condition(PostgreSQLConditionType.Restored)?.status === 'False',
  };
}
