import { expect, test } from 'vitest';
import { FlagError, parseOperatorFlags } from './flags.ts';

test('defaults, and the environment standing in for flags', () => {
  expect(parseOperatorFlags([], { PAGE_SERVER_IMAGE: 'ghcr.io/x/page:1', WATCH_NAMESPACE: 'shop' })).toEqual({
    pageServerImage: 'ghcr.io/x/page:1', leaderElect: true, healthProbeBindAddress: ':8081', metricsBindAddress: ':8443', metricsSecure: true, metricsCertDir: undefined, namespace: 'shop', kubeconfig: undefined, logLevel: 'info',
  });
  expect(parseOperatorFlags(['--page-server-image=a:1', '--leader-elect=false', '--log-level=debug'], {})).toMatchObject({ pageServerImage: 'a:1', leaderElect: false, logLevel: 'debug' });
  expect(parseOperatorFlags(['--help'], {})).toBe('help');
});

test('bad flags say what to change', () => {
  expect(() => parseOperatorFlags([], {})).toThrow(new FlagError('--page-server-image (or $PAGE_SERVER_IMAGE) is required: the image MaintPages without maintpageimage run'));
  expect(() => parseOperatorFlags(['--page-server-image=a', '--leader-elect=yes'], {})).toThrow('--leader-elect must be true or false, not "yes"');
  expect(() => parseOperatorFlags(['--page-server-image=a', '--log-level=loud'], {})).toThrow('--log-level must be one of debug, info, warn, error, not "loud"');
  expect(() => parseOperatorFlags(['--bogus'], {})).toThrow(FlagError);
});
