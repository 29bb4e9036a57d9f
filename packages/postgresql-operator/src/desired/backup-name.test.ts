import { describe, expect, it } from 'vitest';
import { scheduledBackupName } from './backup-name.ts';

describe('scheduledBackupName', () => {
  it('names a slot after the PostgreSQL and the slot time in UTC, the same every time', () => {
    const slot = new Date('2025-01-02T03:05:00Z');
    expect(scheduledBackupName('foodb', slot)).toBe('foodb-202501020305');
    expect(scheduledBackupName('foodb', new Date(slot))).toBe(scheduledBackupName('foodb', slot));
  });

  it('keeps over-long names within 253 characters, valid and distinct', () => {
    const slot = new Date('2025-01-02T03:05:00Z');
    const a = scheduledBackupName(`${'a'.repeat(245)}-x`, slot);
    const b = scheduledBackupName(`${'a'.repeat(245)}-y`, slot);
    expect(a.length).toBeLessThanOrEqual(253);
    expect(a).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    expect(a).not.toBe(b);
    expect(a.endsWith('-202501020305')).toBe(true);
  });
});
