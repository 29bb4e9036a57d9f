import { describe, expect, test } from 'vitest';
import type { AlertExpectation, AlertFiring, BackupRecord, DisruptionRecord, FaultRecord } from '../timeline.ts';
import { alertsBesideFaults, checkMissingAlerts, checkUnexplainedAlerts } from './alerts.ts';
import { emptyTimeline, HOUR, MINUTE, SECOND } from './test-timeline.ts';

const prismDown: AlertExpectation = { alert: 'NutanixPrismUnreachable', forSeconds: 5 * 60, explainedBy: ['prism-outage', 'prism-burst'], expectedFor: ['prism-outage'] };
// Prism refused every request from 10 to 20 min.
const outage: FaultRecord = { id: 'f1', kind: 'prism-outage', target: 'prism', startAt: 10 * MINUTE, endAt: 20 * MINUTE, detail: 'every request refused' };
const leaderKill: FaultRecord = { id: 'f2', kind: 'leader-kill', target: 'nutanix-ahvvm-operator-0', startAt: 40 * MINUTE, endAt: 40 * MINUTE, detail: 'SIGKILL' };
const firing = (firstSeenAt: number, lastSeenAt = firstSeenAt + 5 * MINUTE): AlertFiring =>
  ({ alert: 'NutanixPrismUnreachable', labels: { namespace: 'nutanix-system', service: 'nutanix-ahvvm-operator' }, firstSeenAt, lastSeenAt });
const withAlerts = (alerts: AlertFiring[], faults: FaultRecord[] = [outage, leaderKill]) =>
  emptyTimeline({ faults, alerts, alertExpectations: [prismDown], endedAt: 2 * HOUR });

test('an alert that fired for the fault it is expected for breaks neither invariant', () => {
  const timeline = withAlerts([firing(16 * MINUTE)]);
  expect(checkUnexplainedAlerts(timeline)).toEqual({ invariant: 'alerts.unexplained', violations: [] });
  expect(checkMissingAlerts(timeline)).toEqual({ invariant: 'alerts.missing', violations: [] });
});

describe('alerts.unexplained', () => {
  test('a firing whose condition began up to 15 minutes after an explaining fault was lifted is explained', () => {
    // Condition held from 35 min (fired at 40 min, for: 5 min): exactly 15 min after the outage ended.
    expect(checkUnexplainedAlerts(withAlerts([firing(40 * MINUTE)])).violations).toEqual([]);
  });

  test('a firing with no explaining fault near enough names the nearest faults', () => {
    expect(checkUnexplainedAlerts(withAlerts([firing(40 * MINUTE + 1)])).violations).toEqual([{
      invariant: 'alerts.unexplained',
      at: 40 * MINUTE + 1,
      evidence: 'Alert NutanixPrismUnreachable{namespace="nutanix-system", service="nutanix-ahvvm-operator"} fired from 1970-01-01T00:40:00.001Z '
        + 'to 1970-01-01T00:45:00.001Z, unexplained: no fault or workload disruption of a kind that explains it (prism-outage, prism-burst) '
        + 'happened before it and ended less than 15 min before its condition held (for: 300 s); nearest faults: fault f2 (leader-kill on nutanix-ahvvm-operator-0, '
        + 'at 1970-01-01T00:40:00.000Z), begun 1 ms before',
    }]);
  });

  test('an explaining fault must have begun by the time the alert fired', () => {
    const evidence = checkUnexplainedAlerts(withAlerts([firing(9 * MINUTE)])).violations.map((violation) => violation.evidence);
    expect(evidence).toHaveLength(1);
    expect(evidence[0]).toContain('nearest faults: fault f1 (prism-outage on prism, from 1970-01-01T00:10:00.000Z to 1970-01-01T00:20:00.000Z), begun 1 min after');
  });

  describe('a backup alert after the workload deleted a serving Pod (seed 881946888: a scheduled backup failed 8 s in)', () => {
    const backupFailed: AlertExpectation = { alert: 'PostgreSQLBackupFailed', forSeconds: 0, explainedBy: ['db-pod-delete', 'seaweedfs-stop'], expectedFor: ['seaweedfs-stop'] };
    const failedAt = 25 * SECOND;
    const alert: AlertFiring = { alert: 'PostgreSQLBackupFailed', labels: { postgresql: 'db-2' }, firstSeenAt: 30 * SECOND, lastSeenAt: 70 * SECOND };
    const failedBackup: BackupRecord = {
      db: 'db-2', name: 'db-2-202611281327', store: 'volume', phase: 'Failed', location: 'soak-postgresql/db-2/db-2-202611281327',
      startAt: 17 * SECOND, completedAt: failedAt, error: 'pg_dump: error: connection to server lost',
    };
    const deletion = (at: number): DisruptionRecord => ({ kind: 'db-pod-delete', target: 'soak-postgresql/db-2-544c887f86-k7ldl', at });
    const timeline = (disruptions: DisruptionRecord[]) => emptyTimeline({ disruptions, backups: [failedBackup], alerts: [alert], alertExpectations: [backupFailed] });

    test('is explained by the deletion', () => {
      expect(checkUnexplainedAlerts(timeline([deletion(20 * SECOND)])).violations).toEqual([]);
    });

    test('without one before it, is unexplained, and the evidence quotes the failed backup', () => {
      expect(checkUnexplainedAlerts(timeline([deletion(31 * SECOND)])).violations.map((violation) => violation.evidence)).toEqual([
        'Alert PostgreSQLBackupFailed{postgresql="db-2"} fired from 1970-01-01T00:00:30.000Z to 1970-01-01T00:01:10.000Z, unexplained: no fault or '
          + 'workload disruption of a kind that explains it (db-pod-delete, seaweedfs-stop) happened before it and ended less than 15 min before its '
          + 'condition held (for: 0 s); backup db-2-202611281327 failed: pg_dump: error: connection to server lost; no fault was injected in the run',
      ]);
    });
  });

  test('an alert the soak has no expectation for is always unexplained', () => {
    const unexpected: AlertFiring = { alert: 'PostgreSQLBackupFailing', labels: {}, firstSeenAt: 12 * MINUTE, lastSeenAt: 13 * MINUTE };
    expect(checkUnexplainedAlerts(emptyTimeline({ alerts: [unexpected], alertExpectations: [prismDown] })).violations.map((violation) => violation.evidence)).toEqual([
      'Alert PostgreSQLBackupFailing{} fired from 1970-01-01T00:12:00.000Z to 1970-01-01T00:13:00.000Z, unexplained: the soak has no expectation '
        + 'for this alert: nothing it injects should raise it; no fault was injected in the run',
    ]);
  });
});

describe('alerts.missing', () => {
  test('a fault it is expected for, long enough, with no firing from for: after its start to 5 minutes after its end', () => {
    const late = firing(25 * MINUTE + 1);
    expect(checkMissingAlerts(withAlerts([late])).violations).toEqual([{
      invariant: 'alerts.missing',
      at: 10 * MINUTE,
      evidence: 'Alert NutanixPrismUnreachable (for: 300 s) did not fire for fault f1 (prism-outage on prism, from 1970-01-01T00:10:00.000Z to '
        + '1970-01-01T00:20:00.000Z), which lasted 10 min: it should have been firing between 1970-01-01T00:15:00.000Z and 1970-01-01T00:25:00.000Z; '
        + 'its nearest firing began 15 min after the fault began',
    }]);
    expect(checkMissingAlerts(withAlerts([])).violations[0]?.evidence).toMatch(/; it never fired in the run$/);
  });

  test('the edges of the window count, and so does a firing already going when it opened', () => {
    for (const alerts of [[firing(15 * MINUTE)], [firing(25 * MINUTE)], [firing(8 * MINUTE, 15 * MINUTE)]]) {
      expect(checkMissingAlerts(withAlerts(alerts)).violations).toEqual([]);
    }
    expect(checkMissingAlerts(withAlerts([firing(8 * MINUTE, 15 * MINUTE - 1)])).violations).toHaveLength(1);
  });

  test('a fault no longer than for: plus 2 minutes, or of a kind not expected to raise it, expects nothing', () => {
    const shortOutage = { ...outage, endAt: outage.startAt + 7 * MINUTE };
    const burst: FaultRecord = { ...outage, id: 'f3', kind: 'prism-burst' };
    expect(checkMissingAlerts(withAlerts([], [shortOutage, burst, leaderKill])).violations).toEqual([]);
  });
});

describe('alertsBesideFaults', () => {
  test('each firing in time order, with the faults that overlap it or were lifted at most 15 minutes before it', () => {
    const early = firing(12 * MINUTE);
    const later = firing(35 * MINUTE, 39 * MINUTE);
    const afterKill = firing(50 * MINUTE);
    expect(alertsBesideFaults(withAlerts([afterKill, later, early]))).toEqual([
      { firing: early, faults: [outage] },
      { firing: later, faults: [outage] },
      { firing: afterKill, faults: [leaderKill] },
    ]);
    expect(alertsBesideFaults(withAlerts([firing(36 * MINUTE, 39 * MINUTE)]))).toEqual([{ firing: firing(36 * MINUTE, 39 * MINUTE), faults: [] }]);
  });
});
