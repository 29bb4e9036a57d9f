import { describe, expect, it } from 'vitest';
import { statusFigures } from './status-figures.ts';

const condition = (type: string, status: 'True' | 'False' | 'Unknown', reason: string) => ({ type, status, reason, message: '', lastTransitionTime: '2026-01-03T05:00:00Z' });

describe('statusFigures: the gauges read off the PostgreSQL status as written', () => {
  it('has the time BackupRestorable became NotYetChecked: since then a first drill is owed', () => {
    expect(statusFigures({ conditions: [condition('BackupRestorable', 'Unknown', 'NotYetChecked')] }).restoreCheckPendingSinceSeconds).toBe(Date.parse('2026-01-03T05:00:00Z') / 1000);
  });

  it('has no pending time once a drill has a result, or without drills', () => {
    expect(statusFigures({ conditions: [condition('BackupRestorable', 'True', 'RestoreCheckPassed')] }).restoreCheckPendingSinceSeconds).toBeUndefined();
    expect(statusFigures({}).restoreCheckPendingSinceSeconds).toBeUndefined();
  });

  it('says a restore is blocked while the Restored condition is False, whatever the reason, and not otherwise', () => {
    for (const reason of ['RestoreFailed', 'NoUsableBackup', 'PgToolMissing', 'DumpNewerThanServer']) {
      expect(statusFigures({ conditions: [condition('Restored', 'False', reason)] }).restoreBlocked).toBe(true);
    }
    expect(statusFigures({ conditions: [condition('Restored', 'True', 'Restored')] }).restoreBlocked).toBe(false);
    expect(statusFigures({ conditions: [condition('Restored', 'Unknown', 'WaitingForPod')] }).restoreBlocked).toBe(false);
    expect(statusFigures({}).restoreBlocked).toBe(false);
  });
});
