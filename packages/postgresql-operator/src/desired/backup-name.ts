import { createHash } from 'node:crypto';

/** Longest Kubernetes object name (a DNS subdomain). */
const MAX_NAME_LENGTH = 253;

/** `20250102T0304Z` → `202501020304`: digits only, as object names must be lowercase. */
function slotStamp(slot: Date): string {
  return slot.toISOString().replace(/[-:T]/g, '').slice(0, 12);
}

/**
 * The name of the PostgreSQLBackup for one schedule slot: `<postgresql>-<yyyymmddhhmm>` (UTC). The same slot always
 * gives the same name, so a second attempt to create it (a retried reconcile, two operators during a leader change)
 * fails with AlreadyExists instead of taking a second backup. Over-long names are shortened with a hash so they stay
 * unique and valid.
 */
export function scheduledBackupName(postgresql: string, slot: Date): string {
  const suffix = `-${slotStamp(slot)}`;
  if (postgresql.length + suffix.length <= MAX_NAME_LENGTH) return postgresql + suffix;
  const hash = createHash('sha256').update(postgresql).digest('hex').slice(0, 8);
  const keep = MAX_NAME_LENGTH - suffix.length - hash.length - 1;
  return `${postgresql.slice(0, keep).replace(/[-.]+$/, '')}-${hash}${suffix}`;
}
