// nutanix.duplicateVms: one AhvVm, one VM. A second VM with the same owner means a create was repeated after one had
// succeeded (a lost response, a new leader) — a VM that costs money and that nothing will ever delete.
import type { InvariantResult, PrismVm, SoakTimeline } from '../timeline.ts';
import { timeText } from './evidence-text.ts';
import { invariantResult } from './invariant-result.ts';
import { ahvVmsByUid, ahvVmText, prismVmText, vmsByOwner } from './nutanix-ownership.ts';

interface Duplication {
  firstAt: number;
  lastAt: number;
  samples: number;
  /** Every VM seen for the owner while it had more than one, by uuid. */
  vms: Map<string, PrismVm>;
}

/** One violation per owner uid that ever had two or more VMs in one inventory sample. */
export function checkDuplicateVms(timeline: SoakTimeline): InvariantResult {
  const duplications = new Map<string, Duplication>();
  for (const sample of timeline.prismInventory.toSorted((a, b) => a.at - b.at)) {
    for (const [ownerUid, vms] of vmsByOwner(sample.vms)) {
      if (vms.length < 2) continue;
      let duplication = duplications.get(ownerUid);
      if (!duplication) {
        duplication = { firstAt: sample.at, lastAt: sample.at, samples: 0, vms: new Map() };
        duplications.set(ownerUid, duplication);
      }
      duplication.lastAt = sample.at;
      duplication.samples += 1;
      for (const vm of vms) duplication.vms.set(vm.uuid, vm);
    }
  }
  const known = ahvVmsByUid(timeline.ahvVms);
  const sampleCount = timeline.prismInventory.length;
  return invariantResult('nutanix.duplicateVms', [...duplications].map(([ownerUid, duplication]) => ({
    at: duplication.firstAt,
    evidence: `${ahvVmText(ownerUid, known)} had ${duplication.vms.size} VMs in Prism: `
      + `${[...duplication.vms.values()].map(prismVmText).join(', ')}; duplicated from ${timeText(duplication.firstAt)} `
      + `to ${timeText(duplication.lastAt)}, in ${duplication.samples} of ${sampleCount} inventory samples`,
  })));
}
