import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { FlagError, managerFlags, managerOptionsFrom, parseCommandLine } from './manager-flags.ts';

test('the manager flags have controller-runtime defaults, and $WATCH_NAMESPACE stands in for --namespace', () => {
  const values = parseCommandLine([], {});
  expect(managerFlags(values, { WATCH_NAMESPACE: 'shop' })).toEqual({ leaderElect: true, healthProbeBindAddress: ':8081', metricsBindAddress: ':8443', metricsSecure: true, metricsCertDir: undefined, namespace: 'shop', kubeconfig: undefined, logLevel: 'info' });
  expect(managerFlags(parseCommandLine(['--kubeconfig=/etc/ops/cluster.yaml'], {}), {}).kubeconfig).toBe('/etc/ops/cluster.yaml');
  expect(parseCommandLine(['--help', '--extra=x'], { extra: { type: 'string' } })).toMatchObject({ help: true, extra: 'x' });
});

test('bad flags say what to change', () => {
  expect(() => managerFlags(parseCommandLine(['--leader-elect=yes'], {}), {})).toThrow('--leader-elect must be true or false, not "yes"');
  expect(() => managerFlags(parseCommandLine(['--log-level=loud'], {}), {})).toThrow('--log-level must be one of debug, info, warn, error, not "loud"');
  expect(() => managerFlags(parseCommandLine(['--metrics-secure=no'], {}), {})).toThrow('--metrics-secure must be true or false, not "no"');
  expect(() => managerFlags(parseCommandLine(['--metrics-secure=false', '--metrics-cert-dir=/certs'], {}), {})).toThrow('--metrics-cert-dir needs --metrics-secure=true');
  expect(() => parseCommandLine(['--bogus'], {})).toThrow(FlagError);
});

test('the flags become Manager options; an empty namespace means all namespaces', () => {
  const flags = managerFlags(parseCommandLine(['--leader-elect=false', '--kubeconfig=/k', '--metrics-bind-address=0'], {}), { WATCH_NAMESPACE: '' });
  expect(managerOptionsFrom(flags)).toEqual({ kubeconfig: '/k', leaderElection: { enabled: false }, healthProbeBindAddress: ':8081', metricsBindAddress: '0', metricsSecure: true });
  expect(managerOptionsFrom(managerFlags(parseCommandLine(['--metrics-cert-dir=/certs'], {}), {}))).toMatchObject({ metricsSecure: true, metricsCertDir: '/certs' });
  expect(managerOptionsFrom(managerFlags(parseCommandLine(['--metrics-secure=false'], {}), {}))).toMatchObject({ metricsSecure: false });
  expect(managerOptionsFrom(managerFlags(parseCommandLine([], {}), { WATCH_NAMESPACE: 'shop' }))).toMatchObject({ namespace: 'shop' });
});

test('flagsOrExit: a bad flag exits 2 saying what to change, --help exits 0 with the usage', () => {
  const program = (args: string[]) =>
    spawnSync(process.execPath, ['--conditions=source', '--input-type=module', '-e', `
      const { flagsOrExit, managerFlags, parseCommandLine } = await import(${JSON.stringify(new URL('./manager-flags.ts', import.meta.url).href)});
      const flags = flagsOrExit('demo-operator', 'Usage: demo-operator [flags]', () => {
        const values = parseCommandLine(process.argv.slice(1), {});
        return values.help ? 'help' : managerFlags(values, {});
      });
      process.stdout.write(JSON.stringify(flags.leaderElect));
    `, '--', ...args], { encoding: 'utf8' });
  const bad = program(['--leader-elect=yes']);
  expect({ status: bad.status, stderr: bad.stderr }).toEqual({ status: 2, stderr: 'demo-operator: --leader-elect must be true or false, not "yes"\n\nUsage: demo-operator [flags]\n' });
  const help = program(['--help']);
  expect({ status: help.status, stdout: help.stdout }).toEqual({ status: 0, stdout: 'Usage: demo-operator [flags]\n' });
  const good = program(['--leader-elect=false']);
  expect({ status: good.status, stdout: good.stdout }).toEqual({ status: 0, stdout: 'false' });
});
