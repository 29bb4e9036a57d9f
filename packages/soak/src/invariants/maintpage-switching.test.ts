import { describe, expect, test } from 'vitest';
import type { FaultRecord, ProbeResult, WantedChange } from '../timeline.ts';
import { checkFlapped, checkNeverSwitched, checkProbeErrors, switchLatencies } from './maintpage-switching.ts';
import { emptyTimeline, MINUTE, SECOND } from './test-timeline.ts';

const ANSWERS = { a: 'app', p: 'page', e: 'error' } as const;
/** One probe a second from `fromMs`, one per letter: a (the app), p (the page), e (failed: connection refused). */
function probes(app: string, fromMs: number, letters: string): ProbeResult[] {
  return Array.from(letters, (letter, index): ProbeResult => {
    const answered = ANSWERS[letter as keyof typeof ANSWERS];
    const at = fromMs + index * SECOND;
    return answered === 'error' ? { app, at, answered, error: 'connect ECONNREFUSED' } : { app, at, answered, status: answered === 'page' ? 503 : 200 };
  });
}

// shop: maintenance not wanted from 0 (the initial state), wanted from 10 s (toggle), not wanted from 20 s (window closed); settle at 30 s.
const wanted: WantedChange[] = [
  { app: 'shop', at: 20 * SECOND, wanted: false, how: 'window' },
  { app: 'shop', at: 0, wanted: false, how: 'initial' },
  { app: 'shop', at: 10 * SECOND, wanted: true, how: 'toggle' },
];
const timelineWith = (probeResults: ProbeResult[], faults: FaultRecord[] = []) =>
  emptyTimeline({ wanted, probes: probeResults, faults, settleStartedAt: 30 * SECOND });
//                                    0 s         10 s        20 s
const clean = timelineWith(probes('shop', 0, 'aaaaaaaaaa' + 'aapppppppp' + 'ppppaaaaaa' + 'pppp'));

test('a Service that switched each time and stayed switched breaks none of them; probes after the settle are not judged', () => {
  for (const check of [checkNeverSwitched, checkFlapped, checkProbeErrors]) expect(check(clean).violations).toEqual([]);
  expect(checkNeverSwitched(clean).invariant).toBe('maintpage.neverSwitched');
  expect(checkFlapped(clean).invariant).toBe('maintpage.flapped');
  expect(checkProbeErrors(clean).invariant).toBe('maintpage.probeErrors');
});

describe('maintpage.neverSwitched', () => {
  test('no probe in an interval answered as wanted', () => {
    const timeline = timelineWith(probes('shop', 0, 'aaaaaaaaaa' + 'aaaaaaeaaa' + 'aaaaaaaaaa'));
    expect(checkNeverSwitched(timeline).violations).toEqual([{
      invariant: 'maintpage.neverSwitched',
      at: 10 * SECOND,
      evidence: 'App shop: maintenance was wanted (toggle) from 1970-01-01T00:00:10.000Z until the next change at 1970-01-01T00:00:20.000Z '
        + '(10.0 s), but none of its 10 probes answered the maintenance page: 9 answered the app, 0 the maintenance page, 1 failed',
    }]);
  });

  test('an interval without probes is not judged, and the last interval ends at the settle', () => {
    const timeline = timelineWith(probes('shop', 0, 'a').concat(probes('shop', 21 * SECOND, 'ppppppppp')));
    expect(checkNeverSwitched(timeline).violations.map((violation) => violation.evidence)).toEqual([
      'App shop: maintenance was not wanted (window) from 1970-01-01T00:00:20.000Z until the settle at 1970-01-01T00:00:30.000Z '
        + '(10.0 s), but none of its 9 probes answered the app: 0 answered the app, 9 the maintenance page, 0 failed',
    ]);
  });
});

describe('maintpage.flapped', () => {
  test('answering the other side after switching: one violation per run, failures passing through, the wanted side ending it', () => {
    const timeline = timelineWith(probes('shop', 0, 'aaaaaaaaaa' + 'ppaeapaapp' + 'ppppaaaaaa'));
    expect(checkFlapped(timeline).violations).toEqual([
      {
        invariant: 'maintpage.flapped',
        at: 12 * SECOND,
        evidence: 'App shop answered the maintenance page from 1970-01-01T00:00:10.000Z (0 ms after maintenance was wanted (toggle) at '
          + '1970-01-01T00:00:10.000Z), then the app again in 2 probes from 1970-01-01T00:00:12.000Z to 1970-01-01T00:00:14.000Z (2.0 s), '
          + 'though maintenance was wanted (toggle) until the next change at 1970-01-01T00:00:20.000Z',
      },
      expect.objectContaining({ at: 16 * SECOND, evidence: expect.stringContaining('then the app again in 2 probes from 1970-01-01T00:00:16.000Z') as unknown }),
    ]);
  });

  test('answering the old side before the first switch is latency, not a flap', () => {
    expect(checkFlapped(timelineWith(probes('shop', 0, 'aaaaaaaaaa' + 'aaaaaaaapp' + 'ppppppppaa'))).violations).toEqual([]);
  });
});

describe('maintpage.probeErrors', () => {
  test('one violation per run of consecutive failures per app, with its reasons counted', () => {
    const shop = probes('shop', 0, 'aeeaaaaaaa' + 'pppppppppe' + 'eaaaaaaaaa')
      .map((probe): ProbeResult => probe.at === 20 * SECOND ? { app: 'shop', at: probe.at, answered: 'error', status: 502 } : probe);
    const timeline = timelineWith([...shop, ...probes('blog', 500, 'ae')]);
    expect(checkProbeErrors(timeline).violations.map((violation) => [violation.at, violation.evidence])).toEqual([
      [1 * SECOND, 'App shop: probes through its Service failed in 2 probes from 1970-01-01T00:00:01.000Z to 1970-01-01T00:00:02.000Z (1.0 s): connect ECONNREFUSED (2)'],
      [1.5 * SECOND, 'App blog: probes through its Service failed in 1 probe at 1970-01-01T00:00:01.500Z: connect ECONNREFUSED (1)'],
      [19 * SECOND, 'App shop: probes through its Service failed in 2 probes from 1970-01-01T00:00:19.000Z to 1970-01-01T00:00:20.000Z (1.0 s): connect ECONNREFUSED (1), HTTP 502 (1)'],
    ]);
  });
});

describe('switchLatencies', () => {
  test('from each change to the first probe answering as wanted, apart for switches a fault or its next minute overlapped; the initial state is no switch', () => {
    //                                    0 s         10 s        20 s
    const timeline = timelineWith(probes('shop', 0, 'aaaaaaaaaa' + 'aappppppppp' + 'ppaaaaaaa'), [
      { id: 'f1', kind: 'leader-kill', target: 'maintpage-operator', startAt: 11 * SECOND, endAt: 11 * SECOND, detail: 'SIGKILL' },
    ]);
    expect(switchLatencies(timeline)).toEqual({ duringFaults: [2 * SECOND, 3 * SECOND], withoutFaults: [] });
    expect(switchLatencies(timelineWith(probes('shop', 0, 'aaaaaaaaaa' + 'aapppppppp' + 'pppaaaaaa'), [
      { id: 'f0', kind: 'prism-outage', target: 'prism', startAt: -3 * MINUTE, endAt: -1 * MINUTE - 1, detail: 'refused' },
      { id: 'f2', kind: 'etcd-restart', target: 'etcd', startAt: 24 * SECOND, endAt: 25 * SECOND, detail: 'restarted' },
    ]))).toEqual({ duringFaults: [], withoutFaults: [2 * SECOND, 3 * SECOND] });
  });

  test('a change to what was already wanted opens no interval: the switch is timed from the change that asked for it', () => {
    const windowWhileToggledOn: WantedChange = { app: 'shop', at: 12 * SECOND, wanted: true, how: 'window' };
    const timeline = emptyTimeline({ wanted: [...wanted, windowWhileToggledOn], probes: probes('shop', 0, 'aaaaaaaaaa' + 'aaaaapppppp'), settleStartedAt: 20 * SECOND });
    expect(switchLatencies(timeline)).toEqual({ duringFaults: [], withoutFaults: [5 * SECOND] });
    expect(checkNeverSwitched(timeline).violations).toEqual([]);
  });

  test('an interval that never switched has no latency', () => {
    expect(switchLatencies(timelineWith(probes('shop', 0, 'aaaaaaaaaa' + 'aaaaaaaaaa' + 'aaaaaaaaaa')))).toEqual({ duringFaults: [], withoutFaults: [0] });
  });
});
