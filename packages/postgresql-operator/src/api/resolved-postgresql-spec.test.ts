import { crdManifest } from '@k8s-operators/controller-core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKUP_SCHEDULE } from './defaults.ts';
import { PostgreSQLResource, type PostgreSQLSpec } from './postgresql-resource.ts';
import { resolvePostgreSQLSpec } from './resolved-postgresql-spec.ts';

const seed: PostgreSQLSpec = { db: 'foo', user: 'foo', password: 'foodb-password' };
const withBackup = (backup: PostgreSQLSpec['backup']): PostgreSQLSpec => ({ ...seed, backup });

describe('resolvePostgreSQLSpec', () => {
  it('fills in the same defaults as the CRD, keeping the seed\'s behaviour', () => {
    const { backup: { schedule, ...backup }, ...rest } = resolvePostgreSQLSpec(seed);
    expect(rest).toEqual({ db: 'foo', user: 'foo', password: 'foodb-password', image: 'postgres:15' });
    expect(schedule.ok && schedule.schedule.expression).toBe(DEFAULT_BACKUP_SCHEDULE);
    expect(backup).toEqual({
      suspend: false,
      retention: { ok: true, policy: { keepLast: 12, keepFailed: 3 } },
      onDelete: { finalBackup: true, backups: 'Retain' },
      job: { resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } }, ttlSecondsAfterFinished: 86_400 },
    });
  });

  it('applies the defaults the installed CRD declares, so a stored object and an object built in a test read alike', () => {
    const declared = crdManifest(PostgreSQLResource).spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.properties ?? {};
    const backupDeclared = declared.backup?.properties ?? {};
    const s3Declared = backupDeclared.s3?.properties ?? {};
    const resolved = resolvePostgreSQLSpec(withBackup({ s3: { bucket: 'backups', credentialsSecret: 's3-credentials' } }));
    const { backup } = resolved;
    expect(resolved.image).toBe(declared.image?.default);
    expect(backup.schedule.ok && backup.schedule.schedule.expression).toBe(backupDeclared.schedule?.default);
    expect(backup.suspend).toBe(backupDeclared.suspend?.default);
    expect(backup.retention.ok && backup.retention.policy.keepLast).toBe(backupDeclared.retention?.properties?.keepLast?.default);
    expect(backup.retention.ok && backup.retention.policy.keepFailed).toBe(backupDeclared.retention?.properties?.keepFailed?.default);
    expect(backup.onDelete.finalBackup).toBe(backupDeclared.onDelete?.properties?.finalBackup?.default);
    expect(backup.onDelete.backups).toBe(backupDeclared.onDelete?.properties?.backups?.default);
    expect(backup.job.ttlSecondsAfterFinished).toBe(backupDeclared.job?.properties?.ttlSecondsAfterFinished?.default);
    expect(backup.s3?.location.region).toBe(s3Declared.region?.default);
    expect(backup.s3?.location.forcePathStyle).toBe(s3Declared.forcePathStyle?.default);
  });

  it('keeps what the spec sets, parsed: the schedule, maxAge in milliseconds, resources as quantity strings', () => {
    const resolved = resolvePostgreSQLSpec({
      db: 'orders',
      user: 'app',
      password: 'pw',
      image: 'postgres:16',
      storage: { size: '5Gi' },
      resources: { requests: { cpu: 1, memory: '256Mi' } },
      backup: {
        schedule: '@hourly',
        suspend: true,
        retention: { keepLast: 2, maxAge: '7d' },
        onDelete: { backups: 'Delete' },
        job: { resources: { limits: { cpu: 2, memory: '1Gi' } } },
      },
    });
    expect(resolved).toMatchObject({
      image: 'postgres:16',
      storage: { size: '5Gi' },
      resources: { requests: { cpu: '1', memory: '256Mi' } },
      backup: {
        suspend: true,
        retention: { ok: true, policy: { keepLast: 2, maxAgeMs: 7 * 86_400_000, keepFailed: 3 } },
        onDelete: { finalBackup: true, backups: 'Delete' },
        // Given resources replace the defaults as a whole.
        job: { resources: { limits: { cpu: '2', memory: '1Gi' } } },
      },
    });
    expect(resolved.backup.job.resources).not.toHaveProperty('requests');
    expect(resolved.backup.schedule.ok && resolved.backup.schedule.schedule.expression).toBe('@hourly');
  });

  it('parses the schedule into its slots', () => {
    const { schedule } = resolvePostgreSQLSpec(withBackup({ schedule: '0 3 * * *' })).backup;
    expect(schedule.ok && schedule.schedule.nextAfter(new Date('2026-01-02T05:00:00Z'))).toEqual(new Date('2026-01-03T03:00:00Z'));
    expect(schedule.ok && schedule.schedule.latestAtOrBefore(new Date('2026-01-02T05:00:00Z'))).toEqual(new Date('2026-01-02T03:00:00Z'));
  });

  it('keeps the backup volume unless spec.backup.s3 is set, and fills in the S3 defaults when it is', () => {
    expect(resolvePostgreSQLSpec(seed).backup.s3).toBeUndefined();
    const resolved = resolvePostgreSQLSpec(withBackup({ s3: { bucket: 'backups', credentialsSecret: 's3-credentials' } }));
    expect(resolved.backup.s3).toEqual({
      location: { bucket: 'backups', prefix: '', region: 'us-east-1', forcePathStyle: false },
      credentialsSecret: 's3-credentials',
    });
  });

  describe('spec problems, each a value with the message users see, while the rest resolves', () => {
    it.each([
      ['@secondly', 'schedule "@secondly": unknown macro; use one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly'],
      ['* * * *', 'schedule "* * * *" has 4 fields; a schedule has 5: minute hour day-of-month month day-of-week (UTC), e.g. "*/5 * * * *"'],
      ['61 * * * *', /^schedule "61 \* \* \* \*" is not a valid cron expression: .*got value 61 expected range 0-59/],
    ])('backup.schedule %j', (schedule, message) => {
      const resolved = resolvePostgreSQLSpec(withBackup({ schedule, suspend: true }));
      expect(resolved.backup.schedule.ok).toBe(false);
      const problem = resolved.backup.schedule.ok ? '' : resolved.backup.schedule.message;
      if (typeof message === 'string') expect(problem).toBe(message);
      else expect(problem).toMatch(message);
      expect(resolved.backup.suspend).toBe(true);
      expect(resolved.backup.retention.ok).toBe(true);
    });

    it('backup.retention.maxAge the API server would refuse (an object stored before it checked)', () => {
      const resolved = resolvePostgreSQLSpec(withBackup({ retention: { maxAge: '7days' } }));
      expect(resolved.backup.retention).toEqual({ ok: false, message: 'retention age "7days" must be a whole number followed by m, h, d or w, e.g. 7d' });
      expect(resolved.backup.schedule.ok).toBe(true);
    });
  });
});

describe('resolvePostgreSQLSpec: backup.verify', () => {
  it('is absent without spec.backup.verify: no restore drills, as before', () => {
    expect(resolvePostgreSQLSpec(seed).backup.verify).toBeUndefined();
  });

  it('parses the drill schedule with the code that parses backup.schedule, defaults as the CRD declares', () => {
    const declared = crdManifest(PostgreSQLResource).spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.properties?.backup?.properties?.verify?.properties ?? {};
    const verify = resolvePostgreSQLSpec(withBackup({ verify: {} })).backup.verify;
    expect(verify?.schedule.ok && verify.schedule.schedule.expression).toBe(declared.schedule?.default);
    expect(verify?.schedule.ok && verify.schedule.schedule.nextAfter(new Date('2026-11-28T12:00:00Z')).toISOString()).toBe('2026-11-29T03:00:00.000Z');
    expect(verify?.resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi' } });
    expect(verify?.check).toBeUndefined();
    const bad = resolvePostgreSQLSpec(withBackup({ verify: { schedule: '0 3 * *' } })).backup.verify?.schedule;
    expect(bad).toEqual({ ok: false, message: expect.stringContaining('has 4 fields') as string });
  });

  it('keeps the check query and its expected answer, and given resources as quantities', () => {
    const verify = resolvePostgreSQLSpec(withBackup({ verify: { check: { query: 'SELECT 1', expect: '1' }, resources: { limits: { memory: '2Gi', cpu: 1 } } } })).backup.verify;
    expect(verify?.check).toEqual({ inline: { query: 'SELECT 1', expect: '1' } });
    expect(verify?.resources).toEqual({ limits: { memory: '2Gi', cpu: '1' } });
  });

  it('names the ConfigMap of a check kept apart, to be read when each drill starts', () => {
    const verify = resolvePostgreSQLSpec(withBackup({ verify: { check: { configMapRef: { name: 'orders-drill' } } } })).backup.verify;
    expect(verify?.check).toEqual({ configMap: 'orders-drill' });
  });
});
