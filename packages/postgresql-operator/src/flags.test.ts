import { expect, test } from 'vitest';
import { FlagError, parseOperatorFlags } from './flags.ts';

test('defaults, and the environment standing in for flags', () => {
  expect(parseOperatorFlags([], { WATCH_NAMESPACE: 'shop', POD_NAMESPACE: 'ops' })).toEqual({
    storeService: { namespace: 'ops', name: 'postgresql-operator-backup-store', secretName: 'postgresql-operator-backup-store-tls' },
    storeTokenFile: '/var/run/secrets/exp.wheel.jp/backup-store/token',
    leaderElect: true, healthProbeBindAddress: ':8081', metricsBindAddress: ':8443', metricsSecure: true, metricsCertDir: undefined, namespace: 'shop', kubeconfig: undefined, logLevel: 'info',
  });
  expect(parseOperatorFlags(['--backup-store-service=backups/store', '--leader-elect=false', '--log-level=debug'], {})).toMatchObject({
    storeService: { namespace: 'backups', name: 'store', secretName: 'store-tls' }, leaderElect: false, logLevel: 'debug',
  });
  expect(parseOperatorFlags(['--backup-store-tls-secret=store-cert', '--backup-store-token-file=/run/token'], { POD_NAMESPACE: 'ops' })).toMatchObject({ storeService: { secretName: 'store-cert' }, storeTokenFile: '/run/token' });
  expect(parseOperatorFlags(['--backup-image=registry.example/postgresql-operator:1.2.3'], { POD_NAMESPACE: 'ops' })).toMatchObject({ backupImage: 'registry.example/postgresql-operator:1.2.3' });
  expect(parseOperatorFlags(['--help'], {})).toBe('help');
});

test('bad flags say what to change', () => {
  expect(() => parseOperatorFlags([], {})).toThrow(new FlagError('--backup-store-service: the operator does not know its own namespace (no POD_NAMESPACE): give NAMESPACE/NAME'));
  expect(() => parseOperatorFlags(['--backup-store-service=a/b/c'], {})).toThrow('--backup-store-service must be NAME or NAMESPACE/NAME, not "a/b/c"');
  expect(() => parseOperatorFlags(['--backup-store-token-file=token'], { POD_NAMESPACE: 'ops' })).toThrow('--backup-store-token-file must be an absolute path, not "token"');
  expect(() => parseOperatorFlags(['--leader-elect=yes'], {})).toThrow('--leader-elect must be true or false, not "yes"');
  expect(() => parseOperatorFlags(['--log-level=loud'], {})).toThrow('--log-level must be one of debug, info, warn, error, not "loud"');
  expect(() => parseOperatorFlags(['--backup-image='], { POD_NAMESPACE: 'ops' })).toThrow("--backup-image is empty: give an image reference, or leave it out to use the operator's own");
  expect(() => parseOperatorFlags(['--bogus'], {})).toThrow(FlagError);
});
