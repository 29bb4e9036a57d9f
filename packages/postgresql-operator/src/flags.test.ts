import { expect, test } from 'vitest';
import { FlagError, parseOperatorFlags } from './flags.ts';

test('defaults, and the environment standing in for flags', () => {
  expect(parseOperatorFlags([], { WATCH_NAMESPACE: 'shop' })).toEqual({
    backupDir: '/backup', leaderElect: true, healthProbeBindAddress: ':8081', metricsBindAddress: ':8443', metricsSecure: true, metricsCertDir: undefined, namespace: 'shop', kubeconfig: undefined, logLevel: 'info',
  });
  expect(parseOperatorFlags(['--backup-dir=/var/backups', '--leader-elect=false', '--log-level=debug'], {})).toMatchObject({ backupDir: '/var/backups', leaderElect: false, logLevel: 'debug' });
  expect(parseOperatorFlags(['--backup-image=registry.example/postgresql-operator:1.2.3'], {})).toMatchObject({ backupImage: 'registry.example/postgresql-operator:1.2.3' });
  expect(parseOperatorFlags(['--help'], {})).toBe('help');
});

test('bad flags say what to change', () => {
  expect(() => parseOperatorFlags(['--backup-dir=backup'], {})).toThrow(new FlagError('--backup-dir must be an absolute path, not "backup"'));
  expect(() => parseOperatorFlags(['--leader-elect=yes'], {})).toThrow('--leader-elect must be true or false, not "yes"');
  expect(() => parseOperatorFlags(['--log-level=loud'], {})).toThrow('--log-level must be one of debug, info, warn, error, not "loud"');
  expect(() => parseOperatorFlags(['--backup-image='], {})).toThrow("--backup-image is empty: give an image reference, or leave it out to use the operator's own");
  expect(() => parseOperatorFlags(['--bogus'], {})).toThrow(FlagError);
});
