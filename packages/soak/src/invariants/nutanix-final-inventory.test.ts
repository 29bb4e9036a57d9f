import { describe, expect, test } from 'vitest';
import type { AhvVmRecord } from '../timeline.ts';
import { checkDeletedNotGone, checkFinalInventory } from './nutanix-final-inventory.ts';
import { emptyTimeline, HOUR, MINUTE } from './test-timeline.ts';

const web: AhvVmRecord = { namespace: 'shop', name: 'web-1', uid: 'uid-web', api: 'v4', createdAt: 0 };
const db: AhvVmRecord = { namespace: 'shop', name: 'db-1', uid: 'uid-db', api: 'v3', createdAt: MINUTE };
const deletedDb: AhvVmRecord = { ...db, deletedAt: 10 * MINUTE, goneAt: 11 * MINUTE };

describe('nutanix.finalInventory', () => {
  test('one VM per existing AhvVm, whatever else is in Prism, is no violation', () => {
    const timeline = emptyTimeline({
      ahvVms: [web, deletedDb],
      finalAhvVmUids: ['uid-web'],
      finalPrismVms: [{ uuid: 'u1', name: 'web-1', ownerUid: 'uid-web' }, { uuid: 'x1', name: 'made-by-hand' }],
    });
    expect(checkFinalInventory(timeline)).toEqual({ invariant: 'nutanix.finalInventory', violations: [] });
  });

  test('an orphan VM per VM, saying whether the workload deleted its AhvVm', () => {
    const timeline = emptyTimeline({
      ahvVms: [web, deletedDb],
      finalPrismVms: [
        { uuid: 'u1', name: 'db-1', ownerUid: 'uid-db' },
        { uuid: 'u2', name: 'web-1', ownerUid: 'uid-web' },
        { uuid: 'u3', name: 'ghost', ownerUid: 'uid-ghost' },
      ],
    });
    expect(checkFinalInventory(timeline).violations.map((violation) => violation.evidence)).toEqual([
      'VM "db-1" (uuid u1) is left in Prism after the settle for AhvVm shop/db-1 (uid uid-db), which the workload deleted at '
        + '1970-01-01T00:10:00.000Z (its finalizer cleared at 1970-01-01T00:11:00.000Z without deleting the VM)',
      'VM "web-1" (uuid u2) is left in Prism after the settle for AhvVm shop/web-1 (uid uid-web), which no longer exists though the workload never deleted it',
      'VM "ghost" (uuid u3) is left in Prism after the settle for an AhvVm the workload never recorded (uid uid-ghost)',
    ]);
    expect(checkFinalInventory(timeline).violations.every((violation) => violation.at === HOUR)).toBe(true);
  });

  test('an existing AhvVm with no VM, and one with two', () => {
    const timeline = emptyTimeline({
      ahvVms: [web, db],
      finalAhvVmUids: ['uid-web', 'uid-db'],
      finalPrismVms: [{ uuid: 'u1', name: 'db-1', ownerUid: 'uid-db' }, { uuid: 'u2', name: 'db-1', ownerUid: 'uid-db' }],
    });
    expect(checkFinalInventory(timeline).violations.map((violation) => violation.evidence)).toEqual([
      'AhvVm shop/web-1 (uid uid-web), created at 1970-01-01T00:00:00.000Z, exists after the settle but has no VM in Prism',
      'AhvVm shop/db-1 (uid uid-db), created at 1970-01-01T00:01:00.000Z, has 2 VMs in Prism after the settle: "db-1" (uuid u1), "db-1" (uuid u2)',
    ]);
  });

  test('an AhvVm still being deleted may have lost its VM already: that is nutanix.deletedNotGone, not counted twice', () => {
    const timeline = emptyTimeline({ ahvVms: [{ ...db, deletedAt: 10 * MINUTE }], finalAhvVmUids: ['uid-db'] });
    expect(checkFinalInventory(timeline).violations).toEqual([]);
    expect(checkDeletedNotGone(timeline).violations).toHaveLength(1);
  });
});

describe('nutanix.deletedNotGone', () => {
  test('every deleted AhvVm gone, and those never deleted, are no violation', () => {
    expect(checkDeletedNotGone(emptyTimeline({ ahvVms: [web, deletedDb] }))).toEqual({ invariant: 'nutanix.deletedNotGone', violations: [] });
  });

  test('a deleted AhvVm that never went away is reported at its deletion', () => {
    const timeline = emptyTimeline({ ahvVms: [web, { ...db, deletedAt: 10 * MINUTE }] });
    expect(checkDeletedNotGone(timeline).violations).toEqual([{
      invariant: 'nutanix.deletedNotGone',
      at: 10 * MINUTE,
      evidence: 'AhvVm shop/db-1 (uid uid-db) was deleted by the workload at 1970-01-01T00:10:00.000Z and still existed at the end '
        + 'of the run (1970-01-01T01:00:00.000Z, 50 min later): its finalizer never cleared',
    }]);
  });
});
