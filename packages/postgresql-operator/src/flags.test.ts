import { expect, test } from 'vitest';
import { FlagError, parseOperatorFlags } from './flags.ts';

test('defaults, and the environment standing in for flags', () => {
  expect(parseOperatorFlags([], { WATCH_NAMESPACE: 'shop', POD_NAMESPACE: 'ops' })).toEqual({
    storeService: { namespace: 'ops', name: 'postgresql-operator-backup-store', secretName: 'postgresql-operator-backup-store-tls' },
    storeTokenFile: '/var/run/secrets/exp.wheel.jp/backup-store/token',
    backupVolume: { namespace: 'ops', claimName: 'postgresql-operator-backups', size: '10Gi', storageClassName: '' },
    leaderElect: true, healthProbeBindAddress: ':8081', metricsBindAddress: ':8443', metricsSecure: true, metricsCertDir: undefined, namespace: 'shop', kubeconfig: undefined, logLevel: 'info',
  });
  expect(parseOperatorFlags(['--backup-store-service=backups/store', '--leader-elect=false', '--log-level=debug'], {})).toMatchObject({
    storeService: { namespace: 'backups', name: 'store', secretName: 'store-tls' }, leaderElect: false, logLevel: 'debug',
  });
  expect(parseOperatorFlags(['--backup-store-tls-secret=store-cert', '--backup-store-token-file=/run/token'], { POD_NAMESPACE: 'ops' })).toMatchObject({ storeService: { secretName: 'store-cert' }, storeTokenFile: '/run/token' });
  expect(parseOperatorFlags(['--backup-image=registry.example/postgresql-operator:1.2.3'], { POD_NAMESPACE: 'ops' })).toMatchObject({ backupImage: 'registry.example/postgresql-operator:1.2.3' });
  // The claim goes beside the service; with an empty claim name the operator leaves the claim alone.
  expect(parseOperatorFlags(['--backup-store-service=backups/store', '--backup-volume-claim=dumps', '--backup-volume-size=1.5Ti', '--backup-volume-storage-class=fast.ssd'], {})).toMatchObject({
    backupVolume: { namespace: 'backups', claimName: 'dumps', size: '1.5Ti', storageClassName: 'fast.ssd' },
  });
  expect(parseOperatorFlags(['--backup-volume-claim='], { POD_NAMESPACE: 'ops' })).not.toHaveProperty('backupVolume');
  expect(parseOperatorFlags(['--help'], {})).toBe('help');
});

test('bad flags say what to change', () => {
  expect(() => parseOperatorFlags([], {})).toThrow(new FlagError('--backup-store-service: the operator does not know its own namespace (no POD_NAMESPACE): give NAMESPACE/NAME'));
  expect(() => parseOperatorFlags(['--backup-store-service=a/b/c'], {})).toThrow('--backup-store-service must be NAME or NAMESPACE/NAME, not "a/b/c"');
  expect(() => parseOperatorFlags(['--backup-store-token-file=token'], { POD_NAMESPACE: 'ops' })).toThrow('--backup-store-token-file must be an absolute path, not "token"');
  expect(() => parseOperatorFlags(['--leader-elect=yes'], {})).toThrow('--leader-elect must be true or false, not "yes"');
  expect(() => parseOperatorFlags(['--log-level=loud'], {})).toThrow('--log-level must be one of debug, info, warn, error, not "loud"');
  expect(() => parseOperatorFlags(['--backup-image='], { POD_NAMESPACE: 'ops' })).toThrow("--backup-image is empty: give an image reference, or leave it out to use the operator's own");
  expect(() => parseOperatorFlags(['--backup-volume-claim=Backups'], { POD_NAMESPACE: 'ops' })).toThrow('--backup-volume-claim must be a claim name (or empty), not "Backups"');
  expect(() => parseOperatorFlags(['--backup-volume-size=big'], { POD_NAMESPACE: 'ops' })).toThrow('--backup-volume-size must be a quantity such as 10Gi, not "big"');
  expect(() => parseOperatorFlags(['--backup-volume-storage-class=Fast_SSD'], { POD_NAMESPACE: 'ops' })).toThrow('--backup-volume-storage-class must be a StorageClass name (or empty for the default), not "Fast_SSD"');
  expect(() => parseOperatorFlags(['--bogus'], {})).toThrow(FlagError);
});
