// Which faults explain each shipped alert, and which must make it fire. The alerts and their `for:` are read from the
// PrometheusRules under deploy/, so a new alert without an entry here is reported as unexplained whenever it fires
// (and a renamed one is caught by the test beside this file).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';
import { FAULT_KINDS, OPERATORS, type AlertExpectation, type DisruptionKind, type FaultKind } from './timeline.ts';

const CONTROL_PLANE: FaultKind[] = ['apiserver-restart', 'etcd-restart'];
const LEADERSHIP: FaultKind[] = ['leader-kill', 'leader-delete', ...CONTROL_PLANE];
// The workload's own deletion of a serving Pod fails a backup dumping from it, as the scheduled fault does.
const BACKUP_PATH: (FaultKind | DisruptionKind)[] = ['seaweedfs-stop', 'backup-store-kill', 'db-pod-delete-during-backup', 'db-pod-delete-during-restore', 'db-pod-delete', 'follower-kill', ...LEADERSHIP];
const PRISM: FaultKind[] = ['prism-burst', 'prism-outage', 'prism-slow-tasks', 'prism-failed-tasks'];

/** Alert name -> the faults (and workload disruptions) that explain it firing, and those that must make it fire when they outlast its `for:`. */
export const ALERT_CAUSES: Readonly<Record<string, { explainedBy: readonly (FaultKind | DisruptionKind)[]; expectedFor?: readonly FaultKind[] }>> = {
  MaintPageReconcileErrors: { explainedBy: FAULT_KINDS },
  MaintPageOperatorWatchStalled: { explainedBy: CONTROL_PLANE },
  MaintPageOperatorNoLeader: { explainedBy: LEADERSHIP },
  MaintPageSwitchSlow: { explainedBy: LEADERSHIP },
  MaintPagePublishedLong: { explainedBy: [] },
  PostgreSQLReconcileErrors: { explainedBy: FAULT_KINDS },
  PostgreSQLOperatorWatchStalled: { explainedBy: CONTROL_PLANE },
  PostgreSQLOperatorNoLeader: { explainedBy: LEADERSHIP },
  PostgreSQLBackupTooOld: { explainedBy: BACKUP_PATH },
  PostgreSQLNeverBackedUp: { explainedBy: BACKUP_PATH },
  // No `for:`: the first backup that fails while the bucket is down must raise it.
  PostgreSQLBackupFailed: { explainedBy: BACKUP_PATH, expectedFor: ['seaweedfs-stop'] },
  PostgreSQLRestoreFailing: { explainedBy: BACKUP_PATH },
  // 15 minutes of one pod's restore failing: longer than any fault the soak injects lasts, so never explained.
  PostgreSQLRestoreBlocked: { explainedBy: [] },
  PostgreSQLBackupVolumeFillingUp: { explainedBy: [] },
  PostgreSQLBackupVolumeFull: { explainedBy: [] },
  // The soak's databases set no spec.backup.verify, so no restore drill runs: either alert firing is unexplained.
  PostgreSQLBackupNotRestorable: { explainedBy: [] },
  PostgreSQLRestoreCheckStale: { explainedBy: [] },
  PrismCentralRefusesCredentials: { explainedBy: [] },
  PrismCentralErrors: { explainedBy: ['prism-burst', 'prism-outage'] },
  PrismTasksFailing: { explainedBy: PRISM },
  AhvVmInError: { explainedBy: ['prism-failed-tasks'] },
  AhvVmReconcileErrors: { explainedBy: [...PRISM, ...LEADERSHIP] },
  AhvVmOperatorWatchStalled: { explainedBy: CONTROL_PLANE },
  AhvVmOperatorNoLeader: { explainedBy: LEADERSHIP },
};

/** Prometheus durations (`15m`, `1h30m`, `90s`) in seconds; no `for:` is 0. */
function seconds(text: string | undefined): number {
  if (text === undefined) return 0;
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
  return [...text.matchAll(/(\d+)([smhd])/g)].reduce((sum, [, n, unit]) => sum + Number(n) * (units[unit ?? 's'] ?? 1), 0);
}

/** Every alert the shipped rules define, with its `for:` and its causes. */
export async function shippedAlertExpectations(): Promise<AlertExpectation[]> {
  const expectations: AlertExpectation[] = [];
  for (const operator of OPERATORS) {
    const text = await readFile(join(REPOSITORY_ROOT, 'deploy', operator, 'prometheus', 'rules.yaml'), 'utf8');
    for (const doc of parseAllDocuments(text).map((d) => d.toJSON() as { spec?: { groups?: { rules?: { alert?: string; for?: string }[] }[] } } | null)) {
      for (const rule of (doc?.spec?.groups ?? []).flatMap((g) => g.rules ?? [])) {
        if (rule.alert === undefined) continue;
        const causes = ALERT_CAUSES[rule.alert];
        expectations.push({ alert: rule.alert, forSeconds: seconds(rule.for), explainedBy: [...(causes?.explainedBy ?? [])], expectedFor: [...(causes?.expectedFor ?? [])] });
      }
    }
  }
  return expectations;
}
