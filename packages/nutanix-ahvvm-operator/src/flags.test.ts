import { expect, test } from 'vitest';
import { FlagError, parseOperatorFlags } from './flags.ts';

test('defaults, and the environment standing in for --namespace', () => {
  expect(parseOperatorFlags([], { WATCH_NAMESPACE: 'vms' })).toEqual({
    leaderElect: true,
    healthProbeBindAddress: ':8081',
    metricsBindAddress: ':8443',
    metricsSecure: true,
    metricsCertDir: undefined,
    namespace: 'vms',
    kubeconfig: undefined,
    maxConcurrentReconciles: 10,
    prismMaxConcurrentRequests: 8,
    driftCheckIntervalMs: 60_000,
    taskPollIntervalMs: 1_000,
    prismApiVersion: undefined,
    logLevel: 'info',
  });
  expect(parseOperatorFlags(['--leader-elect=false', '--drift-check-interval=2m', '--task-poll-interval=250ms', '--max-concurrent-reconciles=4'], {}))
    .toMatchObject({ leaderElect: false, driftCheckIntervalMs: 120_000, taskPollIntervalMs: 250, maxConcurrentReconciles: 4 });
  expect(parseOperatorFlags(['--prism-api-version=v4'], {})).toMatchObject({ prismApiVersion: 'v4' });
  expect(parseOperatorFlags(['--help'], {})).toBe('help');
});

test('bad flags say what to change', () => {
  expect(() => parseOperatorFlags(['--leader-elect=yes'], {})).toThrow(new FlagError('--leader-elect must be true or false, not "yes"'));
  expect(() => parseOperatorFlags(['--drift-check-interval=60'], {})).toThrow('--drift-check-interval must be a positive duration such as 500ms, 30s or 2m, not "60"');
  expect(() => parseOperatorFlags(['--task-poll-interval=0s'], {})).toThrow('--task-poll-interval must be a positive duration');
  expect(() => parseOperatorFlags(['--prism-max-concurrent-requests=0'], {})).toThrow('--prism-max-concurrent-requests must be a whole number of at least 1, not "0"');
  expect(() => parseOperatorFlags(['--log-level=loud'], {})).toThrow('--log-level must be one of debug, info, warn, error, not "loud"');
  expect(() => parseOperatorFlags(['--prism-api-version=v5'], {})).toThrow('--prism-api-version must be v3, v4 or auto, not "v5"');
  expect(() => parseOperatorFlags(['--bogus'], {})).toThrow(FlagError);
});
