import { expect, test } from 'vitest';
import type { EndpointSample } from '../timeline.ts';
import { checkUnreadyEndpointSelected } from './maintpage-endpoints.ts';
import { emptyTimeline } from './test-timeline.ts';

type Endpoint = EndpointSample['endpoints'][number];
const healthy = (pod: string): Endpoint => ({ pod, ready: true, terminating: false, podReady: true });
const unready = (pod: string): Endpoint => ({ pod, ready: true, terminating: false, podReady: false });
/** Samples every 100 ms from `fromMs`, one per list of endpoints. */
const samplesEvery100ms = (app: string, fromMs: number, endpointLists: Endpoint[][]): EndpointSample[] =>
  endpointLists.map((endpoints, index) => ({ app, at: fromMs + index * 100, endpoints }));

test('ready endpoints of Ready pods, terminating pods, and endpoints not marked ready are no violation', () => {
  const timeline = emptyTimeline({
    endpointSamples: samplesEvery100ms('shop', 0, [
      [healthy('web-a')],
      [{ ...unready('web-a'), terminating: true }, healthy('web-b')],
      [{ ...unready('web-a'), ready: false }, healthy('web-b')],
    ]),
  });
  expect(checkUnreadyEndpointSelected(timeline)).toEqual({ invariant: 'maintpage.unreadyEndpointSelected', violations: [] });
});

test('a run of samples selecting the same unready pod is one violation; a sample without it ends the run', () => {
  const timeline = emptyTimeline({
    endpointSamples: [
      ...samplesEvery100ms('shop', 0, [[unready('web-a')], [unready('web-a'), unready('web-b')], [unready('web-a')], [healthy('web-a')], [unready('web-a')]]),
      // Another app's samples interleaved in time neither join nor break shop's runs.
      ...samplesEvery100ms('blog', 50, [[unready('web-a')], [healthy('blog-a')]]),
    ].reverse(),
  });
  expect(checkUnreadyEndpointSelected(timeline).violations.map((violation) => [violation.at, violation.evidence])).toEqual([
    [0, 'The Service of app shop selected pod web-a as ready while the pod was not Ready and not terminating, in 3 samples from 1970-01-01T00:00:00.000Z to 1970-01-01T00:00:00.200Z (200 ms)'],
    [50, 'The Service of app blog selected pod web-a as ready while the pod was not Ready and not terminating, in 1 sample at 1970-01-01T00:00:00.050Z'],
    [100, 'The Service of app shop selected pod web-b as ready while the pod was not Ready and not terminating, in 1 sample at 1970-01-01T00:00:00.100Z'],
    [400, 'The Service of app shop selected pod web-a as ready while the pod was not Ready and not terminating, in 1 sample at 1970-01-01T00:00:00.400Z'],
  ]);
});
