import { expect, test } from 'vitest';
import { ALERT_CAUSES, shippedAlertExpectations } from './alert-expectations.ts';

test('every shipped alert has its causes written down, and no entry names an alert that is gone', async () => {
  const shipped = (await shippedAlertExpectations()).map((e) => e.alert).sort();
  expect(shipped.length).toBeGreaterThan(10);
  expect(Object.keys(ALERT_CAUSES).sort()).toEqual(shipped);
});

test("each alert's for: is read from its rule", async () => {
  const byName = new Map((await shippedAlertExpectations()).map((e) => [e.alert, e]));
  expect(byName.get('PostgreSQLReconcileErrors')?.forSeconds).toBe(15 * 60);
  expect(byName.get('PostgreSQLBackupFailed')).toMatchObject({ forSeconds: 0, expectedFor: ['seaweedfs-stop'] });
  expect(byName.get('PostgreSQLNeverBackedUp')?.forSeconds).toBe(3600);
});
