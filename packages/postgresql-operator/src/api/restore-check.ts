/**
 * Names and values of restore drills (`spec.backup.verify`), apart from the schemas so the runtime loads no TypeBox.
 */

/**
 * On a PostgreSQL: a drill now, once per value (`kubectl annotate pg foodb exp.wheel.jp/restore-check=$(date +%s)
 * --overwrite`). The value is recorded in the backup's `status.restoreCheck.request` when the drill has a result, so a
 * value is answered once, and after an operator restart too.
 */
export const RESTORE_CHECK_ANNOTATION = 'exp.wheel.jp/restore-check';

/** The longest check query or expected answer: a check, not a script. */
export const MAX_CHECK_TEXT = 4096;

/** The keys of a check's ConfigMap (`spec.backup.verify.check.configMapRef`): the query, and the answer it must give. */
export const RESTORE_CHECK_QUERY_KEY = 'query';
export const RESTORE_CHECK_EXPECT_KEY = 'expect';

export const RESTORE_CHECK_RESULTS = ['Passed', 'Failed'] as const;
export type RestoreCheckResult = (typeof RESTORE_CHECK_RESULTS)[number];

export const RESTORE_CHECK_TRIGGERS = ['Scheduled', 'OnDemand'] as const;
export type RestoreCheckTrigger = (typeof RESTORE_CHECK_TRIGGERS)[number];

/** Why a drill failed: each a fault of the backup (or of what it needs to restore), never of the drill's pod. */
export const RESTORE_CHECK_REASONS = [
  'RestoreFailed', 'CheckMismatch', 'CheckFailed', 'BackupCorrupted', 'PgToolMissing', 'DumpNewerThanServer',
  // An encrypted backup (spec.backup.encryption), as BackupDecryptReason names them.
  'NotAnAgeFile', 'NoMatchingIdentity', 'DamagedAgeFile', 'IdentityUnavailable',
] as const;
export type RestoreCheckFailureReason = (typeof RESTORE_CHECK_REASONS)[number];
