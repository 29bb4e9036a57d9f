/** Condition types of `PostgreSQL.status.conditions`. Apart from the status schema so the runtime loads no TypeBox. */
export const PostgreSQLConditionType = {
  /** The database accepts connections, holds its restored data, and its Service sends traffic to it. */
  Ready: 'Ready',
  /** The most recent backup (scheduled or on demand) completed: decoded in full and checked in the store. */
  BackupSucceeded: 'BackupSucceeded',
  /** The running pod's data was restored from a backup, or needed none (no backup yet, or data on a volume). */
  Restored: 'Restored',
  /** The last restore drill (spec.backup.verify) restored the backup it names into a scratch pod and its checks passed. */
  BackupRestorable: 'BackupRestorable',
} as const;
export type PostgreSQLConditionType = (typeof PostgreSQLConditionType)[keyof typeof PostgreSQLConditionType];
