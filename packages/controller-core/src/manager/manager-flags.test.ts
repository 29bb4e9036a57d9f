import { expect, test } from 'vitest';
import { FlagError, managerFlags, parseCommandLine } from './manager-flags.ts';

test('the manager flags have controller-runtime defaults, and $WATCH_NAMESPACE stands in for --namespace', () => {
  const values = parseCommandLine([], {});
  expect(managerFlags(values, { WATCH_NAMESPACE: 'shop' })).toEqual({ leaderElect: true, healthProbeBindAddress: ':8081', metricsBindAddress: ':8080', namespace: 'shop', kubeconfig: undefined, logLevel: 'info' });
  expect(managerFlags(parseCommandLine(['--kubeconfig=/etc/ops/cluster.yaml'], {}), {}).kubeconfig).toBe('/etc/ops/cluster.yaml');
  expect(parseCommandLine(['--help', '--extra=x'], { extra: { type: 'string' } })).toMatchObject({ help: true, extra: 'x' });
});

test('bad flags say what to change', () => {
  expect(() => managerFlags(parseCommandLine(['--leader-elect=yes'], {}), {})).toThrow('--leader-elect must be true or false, not "yes"');
  expect(() => managerFlags(parseCommandLine(['--log-level=loud'], {}), {})).toThrow('--log-level must be one of debug, info, warn, error, not "loud"');
  expect(() => parseCommandLine(['--bogus'], {})).toThrow(FlagError);
});
