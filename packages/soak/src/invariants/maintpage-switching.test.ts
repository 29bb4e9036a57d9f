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

// shop: maintenance not wanted from 0 (the initial state), wanted from 10 s (toggle), not wanted from 20 s (window
// closed); the settle at 25 s, the probes stopped at 30 s.
const wanted: WantedChange[] = [
  { app: 'shop', at: 20 * SECOND, wanted: false, how: 'window' },
  { app: 'shop', at: 0, wanted: false, how: 'initial' },
  { app: 'shop', at: 10 * SECOND, wanted: true, how: 'toggle' },
];
const timelineWith = (probeResults: ProbeResult[], faults: FaultRecord[] = []) =>
  emptyTimeline({ wanted, probes: probeResults, faults, settleStartedAt: 25 * SECOND, observedUntil: 30 * SECOND });
//                                    0 s         10 s        20 s
const clean = timelineWith(probes('shop', 0, 'aaaaaaaaaa' + 'aapppppppp' + 'ppppaaaaaa' + 'pppp'));

test('a Service that switched each time and stayed switched breaks none of them; probes after the end of observation are not judged', () => {
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

  test('an interval without probes is not judged', () => {
    expect(checkNeverSwitched(timelineWith(probes('shop', 0, 'a').concat(probes('shop', 21 * SECOND, 'aaaaaaaaa')))).violations).toEqual([]);
  });
});

describe('the end of observation', () => {
  /** docs: maintenance not wanted from 0 (the initial state), wanted while a schedule window is open. */
  const docsWindow = (opens: number, closes: number): WantedChange[] => [
    { app: 'docs', at: 0, wanted: false, how: 'initial' },
    { app: 'docs', at: opens, wanted: true, how: 'window' },
    { app: 'docs', at: closes, wanted: false, how: 'window' },
  ];
  // The failed run of seed 1112471039: the window of docs closed at 04:53.6, during an etcd restart (04:51.0-04:58.4);
  // the workload stopped at 05:00 and the settle began at 05:02.9. The probes now go on through the settle (2 min here).
  const docs = docsWindow(3 * MINUTE, 4 * MINUTE + 53.6 * SECOND);
  const etcdRestart: FaultRecord = { id: 'f7', kind: 'etcd-restart', target: 'etcd', startAt: 4 * MINUTE + 51 * SECOND, endAt: 4 * MINUTE + 58.4 * SECOND, detail: 'restarted' };
  const settleStartedAt = 5 * MINUTE + 2.9 * SECOND;
  // A probe a second from 02:50: the app up to 03:00, when the window opened; the page from 03:01 to 05:03, through
  // the fault and past the window's close; the app again from 05:04, during the settle, up to 07:02.
  const seen = probes('docs', 170 * SECOND, 'a'.repeat(11) + 'p'.repeat(123) + 'a'.repeat(119));

  test('a change during a fault shortly before the settle, switched during the settle, breaks nothing and is timed', () => {
    const timeline = emptyTimeline({ wanted: docs, probes: seen, faults: [etcdRestart], settleStartedAt, observedUntil: settleStartedAt + 2 * MINUTE });
    expect(checkNeverSwitched(timeline).violations).toEqual([]);
    expect(checkFlapped(timeline).violations).toEqual([]);
    // The window closed at 04:53.6 and the app answered at 05:04, during the settle, within a minute of the fault's end.
    expect(switchLatencies(timeline)).toEqual({ duringFaults: [10.4 * SECOND], withoutFaults: [1 * SECOND] });
  });

  test('a wish that held a minute or more until the end of observation, never answered, is a violation, also one made during the settle', () => {
    // A window open from 30 s, closed at 70 s, after the settle began at 60 s; the probes stopped at 130 s.
    const timeline = emptyTimeline({
      wanted: docsWindow(30 * SECOND, 70 * SECOND), settleStartedAt: MINUTE, observedUntil: 130 * SECOND,
      probes: probes('docs', 0, 'a'.repeat(30) + 'p'.repeat(100)),
    });
    expect(checkNeverSwitched(timeline).violations).toEqual([{
      invariant: 'maintpage.neverSwitched',
      at: 70 * SECOND,
      evidence: 'App docs: maintenance was not wanted (window) from 1970-01-01T00:01:10.000Z until the end of the run at 1970-01-01T00:02:10.000Z '
        + '(1 min), but none of its 60 probes answered the app: 0 answered the app, 60 the maintenance page, 0 failed',
    }]);
  });

  test('a window that closes after the end of observation is judged up to that end', () => {
    const timeline = emptyTimeline({ wanted: docsWindow(100 * SECOND, 200 * SECOND), settleStartedAt: 80 * SECOND, observedUntil: 170 * SECOND, probes: probes('docs', 0, 'a'.repeat(170)) });
    expect(checkNeverSwitched(timeline).violations.map((violation) => violation.evidence)).toEqual([
      'App docs: maintenance was wanted (window) from 1970-01-01T00:01:40.000Z until the end of the run at 1970-01-01T00:02:50.000Z '
        + '(1 min 10 s), but none of its 70 probes answered the maintenance page: 70 answered the app, 0 the maintenance page, 0 failed',
    ]);
  });

  test('a wish the end of observation cut shorter than a minute is not judged by neverSwitched, but a flap in it is one', () => {
    const cutAt = (probeResults: ProbeResult[]) => emptyTimeline({ wanted: docsWindow(10 * SECOND, 70 * SECOND), settleStartedAt: MINUTE, observedUntil: 129.9 * SECOND, probes: probeResults });
    //                                 0 s          10 s               70 s
    const neverAnswered = cutAt(probes('docs', 0, 'a'.repeat(10) + 'p'.repeat(60) + 'p'.repeat(60)));
    expect(checkNeverSwitched(neverAnswered).violations).toEqual([]);
    const flapped = cutAt(probes('docs', 0, 'a'.repeat(10) + 'p'.repeat(60) + 'a'.repeat(10) + 'p'.repeat(50)));
    expect(checkNeverSwitched(flapped).violations).toEqual([]);
    expect(checkFlapped(flapped).violations.map((violation) => violation.evidence)).toEqual([
      'App docs answered the app from 1970-01-01T00:01:10.000Z (0 ms after maintenance was not wanted (window) at 1970-01-01T00:01:10.000Z), '
        + 'then the maintenance page again in 50 probes from 1970-01-01T00:01:20.000Z to 1970-01-01T00:02:09.000Z (49.0 s), '
        + 'though maintenance was not wanted (window) until the end of the run at 1970-01-01T00:02:09.900Z',
    ]);
  });

  test('timelines recorded before observedUntil was kept end the last wish at the settle, judged the same way', () => {
    const toggled: WantedChange[] = [{ app: 'shop', at: 0, wanted: false, how: 'initial' }, { app: 'shop', at: 10 * SECOND, wanted: true, how: 'toggle' }];
    // Probes after the settle (none were recorded then) are left out.
    const timeline = emptyTimeline({ wanted: toggled, settleStartedAt: 80 * SECOND, probes: probes('shop', 0, 'a'.repeat(80) + 'p'.repeat(10)) });
    expect(timeline.observedUntil).toBeUndefined();
    expect(checkNeverSwitched(timeline).violations.map((violation) => violation.evidence)).toEqual([
      'App shop: maintenance was wanted (toggle) from 1970-01-01T00:00:10.000Z until the settle at 1970-01-01T00:01:20.000Z '
        + '(1 min 10 s), but none of its 70 probes answered the maintenance page: 70 answered the app, 0 the maintenance page, 0 failed',
    ]);
    // The run of seed 1112471039 as it was recorded, the probes stopped with the workload at 05:00: the settle cut the
    // closed window's interval 9.3 s after it began, too short to judge.
    const asRecorded = emptyTimeline({ wanted: docs, probes: seen.filter((probe) => probe.at < 5 * MINUTE), faults: [etcdRestart], settleStartedAt });
    expect(checkNeverSwitched(asRecorded).violations).toEqual([]);
    expect(switchLatencies(asRecorded)).toEqual({ duringFaults: [], withoutFaults: [1 * SECOND] });
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
