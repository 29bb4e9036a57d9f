// Every invariant the soak counts, checked over a recorded timeline, and what the report shows beside the counters.
import type { InvariantResult, SoakTimeline } from '../timeline.ts';
import { checkMissingAlerts, checkUnexplainedAlerts } from './alerts.ts';
import { checkUnreadyEndpointSelected } from './maintpage-endpoints.ts';
import { checkFlapped, checkNeverSwitched, checkProbeErrors } from './maintpage-switching.ts';
import { checkDuplicateVms } from './nutanix-duplicates.ts';
import { checkDeletedNotGone, checkFinalInventory } from './nutanix-final-inventory.ts';
import { checkCrashes, checkQueueNotEmpty, checkStaleObservedGeneration, checkStuckFinalizers, checkUncheckable } from './operator-health.ts';
import { checkCompletedNotVerified, checkCompletedObjectMissing, checkIncompleteUploads, checkOrphanObjects } from './postgresql-backups.ts';
import { checkFewerRowsThanBackup, checkMixedRestore, checkReadyButNotServing, checkServedBeforeRestore } from './postgresql-restores.ts';
import { checkMemoryLeak } from './rss-slope.ts';

export { alertsBesideFaults, type AlertBesideFaults } from './alerts.ts';
export { switchLatencies } from './maintpage-switching.ts';
export { percentile } from './percentile.ts';
export { retainedObjects } from './postgresql-backups.ts';
export { LEAK_SLOPE_MIB_PER_HOUR, rssSlopes, type RssSlope } from './rss-slope.ts';

/** The invariants in the order the report lists them: by operator, then what every operator owes. */
export const INVARIANT_NAMES = [
  'nutanix.duplicateVms',
  'nutanix.finalInventory',
  'nutanix.deletedNotGone',
  'postgresql.servedBeforeRestore',
  'postgresql.fewerRowsThanBackup',
  'postgresql.mixedRestore',
  'postgresql.readyButNotServing',
  'postgresql.completedNotVerified',
  'postgresql.completedObjectMissing',
  'postgresql.orphanObjects',
  'postgresql.incompleteUploads',
  'maintpage.unreadyEndpointSelected',
  'maintpage.neverSwitched',
  'maintpage.flapped',
  'maintpage.probeErrors',
  'operators.crashes',
  'operators.queueNotEmpty',
  'operators.stuckFinalizers',
  'operators.staleObservedGeneration',
  'operators.memoryLeak',
  'alerts.unexplained',
  'alerts.missing',
  'soak.uncheckable',
] as const;

const CHECKERS: readonly ((timeline: SoakTimeline) => InvariantResult)[] = [
  checkDuplicateVms,
  checkFinalInventory,
  checkDeletedNotGone,
  checkServedBeforeRestore,
  checkFewerRowsThanBackup,
  checkMixedRestore,
  checkReadyButNotServing,
  checkCompletedNotVerified,
  checkCompletedObjectMissing,
  checkOrphanObjects,
  checkIncompleteUploads,
  checkUnreadyEndpointSelected,
  checkNeverSwitched,
  checkFlapped,
  checkProbeErrors,
  checkCrashes,
  checkQueueNotEmpty,
  checkStuckFinalizers,
  checkStaleObservedGeneration,
  checkMemoryLeak,
  checkUnexplainedAlerts,
  checkMissingAlerts,
  checkUncheckable,
];

/** Every invariant's result, in INVARIANT_NAMES order, those without violations too: the report shows every counter. */
export function checkAllInvariants(timeline: SoakTimeline): InvariantResult[] {
  return CHECKERS.map((check) => check(timeline));
}
