import { expect, test } from 'vitest';
import type { AhvVmRecord, PrismVm } from '../timeline.ts';
import { checkDuplicateVms } from './nutanix-duplicates.ts';
import { emptyTimeline, SECOND } from './test-timeline.ts';

const web: AhvVmRecord = { namespace: 'shop', name: 'web-1', uid: 'uid-web', api: 'v4', createdAt: 0 };
const vm = (uuid: string, name: string, ownerUid?: string): PrismVm => ({ uuid, name, ...(ownerUid === undefined ? {} : { ownerUid }) });

test('one VM per owner, and VMs that no AhvVm owns, are no violation', () => {
  const timeline = emptyTimeline({
    ahvVms: [web],
    prismInventory: [
      { at: 0, vms: [vm('u1', 'web-1', 'uid-web'), vm('x1', 'by-hand'), vm('x2', 'by-hand')] },
      { at: 5 * SECOND, vms: [vm('u1', 'web-1', 'uid-web'), vm('u2', 'db-1', 'uid-db')] },
    ],
  });
  expect(checkDuplicateVms(timeline)).toEqual({ invariant: 'nutanix.duplicateVms', violations: [] });
});

test('an owner with two VMs is reported once, at its first duplicated sample, naming the AhvVm, every VM and how often', () => {
  const timeline = emptyTimeline({
    ahvVms: [web],
    prismInventory: [
      { at: 20 * SECOND, vms: [vm('u1', 'web-1', 'uid-web'), vm('u3', 'web-1', 'uid-web')] },
      { at: 0, vms: [vm('u1', 'web-1', 'uid-web')] },
      { at: 10 * SECOND, vms: [vm('u1', 'web-1', 'uid-web'), vm('u2', 'web-1', 'uid-web')] },
      { at: 15 * SECOND, vms: [vm('u1', 'web-1', 'uid-web'), vm('u2', 'web-1', 'uid-web')] },
    ],
  });
  expect(checkDuplicateVms(timeline).violations).toEqual([{
    invariant: 'nutanix.duplicateVms',
    at: 10 * SECOND,
    evidence: 'AhvVm shop/web-1 (uid uid-web) had 3 VMs in Prism: "web-1" (uuid u1), "web-1" (uuid u2), "web-1" (uuid u3); '
      + 'duplicated from 1970-01-01T00:00:10.000Z to 1970-01-01T00:00:20.000Z, in 3 of 4 inventory samples',
  }]);
});

test('an owner the workload never recorded is named by its uid', () => {
  const timeline = emptyTimeline({ prismInventory: [{ at: 0, vms: [vm('u1', 'a', 'uid-gone'), vm('u2', 'a', 'uid-gone')] }] });
  const [violation] = checkDuplicateVms(timeline).violations;
  expect(violation?.evidence).toMatch(/^an AhvVm the workload never recorded \(uid uid-gone\) had 2 VMs/);
});
