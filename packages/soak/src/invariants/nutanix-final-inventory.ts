// What Prism holds once the workload has stopped and the operator has had the settle to catch up: exactly one VM per
// AhvVm that exists, and no AhvVm the workload deleted still waiting on its finalizer.
import type { AhvVmRecord, InvariantResult, SoakTimeline } from '../timeline.ts';
import { durationText, timeText } from './evidence-text.ts';
import { invariantResult, type Finding } from './invariant-result.ts';
import { ahvVmsByUid, ahvVmText, prismVmText, vmsByOwner } from './nutanix-ownership.ts';

/** nutanix.finalInventory: an orphan VM, an existing AhvVm without a VM, or one with several. */
export function checkFinalInventory(timeline: SoakTimeline): InvariantResult {
  const known = ahvVmsByUid(timeline.ahvVms);
  const existing = new Set(timeline.finalAhvVmUids);
  const vmsOf = vmsByOwner(timeline.finalPrismVms);
  const at = timeline.endedAt;
  const findings: Finding[] = [];
  for (const [ownerUid, vms] of vmsOf) {
    if (existing.has(ownerUid)) continue;
    for (const vm of vms) {
      findings.push({ at, evidence: `VM ${prismVmText(vm)} is left in Prism after the settle for ${ahvVmText(ownerUid, known)}${orphanReason(known.get(ownerUid))}` });
    }
  }
  for (const uid of timeline.finalAhvVmUids) {
    const vms = vmsOf.get(uid) ?? [];
    const ahvVm = known.get(uid);
    // An AhvVm the workload deleted may rightly have lost its VM already; that it still exists is
    // nutanix.deletedNotGone's to report, not a second violation here.
    if (vms.length === 0 && ahvVm?.deletedAt === undefined) {
      findings.push({ at, evidence: `${ahvVmText(uid, known)}${createdText(ahvVm)} exists after the settle but has no VM in Prism` });
    }
    if (vms.length > 1) {
      findings.push({ at, evidence: `${ahvVmText(uid, known)}${createdText(ahvVm)} has ${vms.length} VMs in Prism after the settle: ${vms.map(prismVmText).join(', ')}` });
    }
  }
  return invariantResult('nutanix.finalInventory', findings);
}

/** nutanix.deletedNotGone: an AhvVm the workload deleted that the API server still had at the end (its finalizer never cleared). */
export function checkDeletedNotGone(timeline: SoakTimeline): InvariantResult {
  const known = ahvVmsByUid(timeline.ahvVms);
  return invariantResult('nutanix.deletedNotGone', timeline.ahvVms.flatMap((ahvVm): Finding[] => {
    if (ahvVm.deletedAt === undefined || ahvVm.goneAt !== undefined) return [];
    return [{
      at: ahvVm.deletedAt,
      evidence: `${ahvVmText(ahvVm.uid, known)} was deleted by the workload at ${timeText(ahvVm.deletedAt)} and still existed `
        + `at the end of the run (${timeText(timeline.endedAt)}, ${durationText(timeline.endedAt - ahvVm.deletedAt)} later): its finalizer never cleared`,
    }];
  }));
}

function orphanReason(ahvVm: AhvVmRecord | undefined): string {
  if (!ahvVm) return '';
  if (ahvVm.deletedAt === undefined) return ', which no longer exists though the workload never deleted it';
  const gone = ahvVm.goneAt === undefined ? '' : ` (its finalizer cleared at ${timeText(ahvVm.goneAt)} without deleting the VM)`;
  return `, which the workload deleted at ${timeText(ahvVm.deletedAt)}${gone}`;
}

function createdText(ahvVm: AhvVmRecord | undefined): string {
  return ahvVm ? `, created at ${timeText(ahvVm.createdAt)},` : '';
}
