// The soak report as its readers get it: a small made-up run written into a temporary directory, then the JSON a
// pipeline reads, the markdown a platform engineer reads and the charts it links, checked for what they say.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi, type MockInstance } from 'vitest';
import type { FaultRecord, Violation } from '../timeline.ts';
import type { SoakReportInput } from './report-input.ts';
import type { SoakReport } from './soak-report.ts';
import { writeSoakReport } from './write-soak-report.ts';

const startedAt = Date.parse('2025-03-01T09:00:00.000Z');
const minutes = (count: number): number => startedAt + count * 60_000;
const KIND_CONTAINER = 'containerd://3f1c9a7be2d40c5e8a6b1f29d7c3e4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b';
const LOCAL_CONTAINER = 'docker://k8s_manager_postgresql-operator-55d1_postgresql-operator-system_9715d41e_28035-113';

const leaderKill: FaultRecord = { id: 'f1', kind: 'leader-kill', target: 'maintpage-operator', startAt: minutes(5), endAt: minutes(5), detail: 'SIGKILL maintpage-operator-7c9f' };
const prismOutage: FaultRecord = { id: 'f2', kind: 'prism-outage', target: 'prism', startAt: minutes(20), endAt: minutes(23), detail: 'every Prism request refused for 3 min' };

const lostRow: Violation = { invariant: 'acknowledged-rows-survive', at: minutes(12) + 34_000, evidence: 'database shop: row 17 acknowledged at 12:30, missing on shop-1 after restore' };
/** 61 wrong answers, so that the listing (capped at 50) has 11 left over with the lost row. */
const wrongPages: Violation[] = Array.from({ length: 61 }, (_, i) => ({ invariant: 'maintpage-serves-wanted', at: minutes(30) + i * 1000, evidence: `app shop answered 200 at request ${i + 1} while maintenance was wanted` }));

/** Every 10 s through the run and settle; the machine was saturated from 12:00 to 13:00, when the row was lost. */
const machineLoad = Array.from({ length: 45 * 6 + 1 }, (_, i) => {
  const at = startedAt + i * 10_000;
  const saturated = at >= minutes(12) && at <= minutes(13);
  return { at, cores: 2, cpuBusyPercent: saturated ? 98 : 35, load1: saturated ? 4.6 : 0.8 };
});

function runInput(overrides: Partial<SoakReportInput> = {}): SoakReportInput {
  return {
    seed: 1234,
    cluster: 'kind',
    command: 'npm run soak -- --cluster kind --seed 1234 --duration 40m',
    startedAt,
    settleStartedAt: minutes(40),
    endedAt: minutes(45),
    faults: [prismOutage, leaderKill],
    invariants: [
      { invariant: 'acknowledged-rows-survive', violations: [lostRow] },
      { invariant: 'maintpage-serves-wanted', violations: wrongPages },
      { invariant: 'no-orphan-vms', violations: [] },
    ],
    rss: {
      'maintpage-operator': { startMiB: 61.25, endMiB: 64.5, slopeMiBPerHour: 0.75, judged: true, pod: 'maintpage-operator-7c9f', container: KIND_CONTAINER, spanMinutes: 30 },
      'postgresql-operator': { startMiB: 80, endMiB: 95, slopeMiBPerHour: 22.5, judged: false, pod: 'postgresql-operator-55d1', container: LOCAL_CONTAINER, spanMinutes: 4 },
    },
    processSamples: [0, 10, 20, 30, 40].flatMap((minute) => [
      { operator: 'maintpage-operator' as const, pod: 'maintpage-operator-7c9f', container: KIND_CONTAINER, at: minutes(minute), leader: true, rssMiB: 61 + minute / 10, openFds: 20, sockets: 4 },
      { operator: 'postgresql-operator' as const, pod: 'postgresql-operator-55d1', container: LOCAL_CONTAINER, at: minutes(minute), leader: true, rssMiB: 80 + minute / 3, openFds: 30, sockets: 6 },
    ]),
    machineLoad,
    queueDepth: [0, 5, 6, 20, 21, 40].map((minute) => ({ operator: 'nutanix-ahvvm-operator' as const, at: minutes(minute), depth: minute === 21 ? 7 : 0 })),
    switchLatencyMs: { duringFaults: [900, 4100, 1200], withoutFaults: [310, 250, 290, 330] },
    alerts: [{ firing: { alert: 'PrismUnreachable', labels: { severity: 'warning' }, firstSeenAt: minutes(21), lastSeenAt: minutes(24) }, faults: [prismOutage] }],
    retainedObjects: ['bucket/shop/1/backup-0003.tar.zst'],
    workload: { 'maintpage toggles': 12, 'databases created': 2 },
    leakSlopeMiBPerHour: 5,
    ...overrides,
  };
}

let root: string;
beforeAll(async () => { root = await mkdtemp(join(tmpdir(), 'soak-report-')); });
afterAll(async () => { await rm(root, { recursive: true, force: true }); });

describe('a run that broke invariants', () => {
  let written: Awaited<ReturnType<typeof writeSoakReport>>;
  let json: SoakReport;
  let markdown: string;
  let fetchSpy: MockInstance<typeof fetch>;
  beforeAll(async () => {
    fetchSpy = vi.spyOn(globalThis, 'fetch');
    written = await writeSoakReport(join(root, 'failed'), runInput());
    json = JSON.parse(await readFile(written.jsonPath, 'utf8')) as SoakReport;
    markdown = await readFile(written.markdownPath, 'utf8');
  });
  afterAll(() => { fetchSpy.mockRestore(); });

  test('soak-report.json: the run, every fault kind counted (zeros too), every invariant counted, and passed false', () => {
    expect(json).toMatchObject({ seed: 1234, cluster: 'kind', command: 'npm run soak -- --cluster kind --seed 1234 --duration 40m', durationSeconds: 2400, settleSeconds: 300, passed: false });
    expect(json.faults).toEqual({
      'leader-kill': 1, 'leader-delete': 0, 'follower-kill': 0, 'apiserver-restart': 0, 'etcd-restart': 0, 'db-pod-delete-during-backup': 0,
      'db-pod-delete-during-restore': 0, 'backup-store-kill': 0, 'seaweedfs-stop': 0, 'prism-burst': 0, 'prism-slow-tasks': 0, 'prism-failed-tasks': 0, 'prism-outage': 1,
    });
    // In time order, whatever order the injector reported them in.
    expect(json.faultSchedule.map((fault) => [fault.id, fault.startAt, fault.endAt])).toEqual([['f1', '2025-03-01T09:05:00.000Z', '2025-03-01T09:05:00.000Z'], ['f2', '2025-03-01T09:20:00.000Z', '2025-03-01T09:23:00.000Z']]);
    expect(json.invariants).toEqual({ 'acknowledged-rows-survive': 1, 'maintpage-serves-wanted': 61, 'no-orphan-vms': 0 });
    expect(json.violations).toHaveLength(62);
    expect(json.violations[0]).toEqual({ invariant: 'acknowledged-rows-survive', at: '2025-03-01T09:12:34.000Z', evidence: lostRow.evidence, machine: { cpuBusyPercent: 98, load1: 4.6, cores: 2 } });
  });

  test('soak-report.json: alerts with their faults, RSS, nearest-rank switch latencies, workload and retained objects', () => {
    expect(json.alerts).toEqual([{ alert: 'PrismUnreachable', labels: { severity: 'warning' }, firstSeenAt: '2025-03-01T09:21:00.000Z', lastSeenAt: '2025-03-01T09:24:00.000Z', faults: ['f2'] }]);
    expect(json.rssLeakThresholdMiBPerHour).toBe(5);
    expect(json.rssMiB).toEqual({
      'maintpage-operator': { start: 61.25, end: 64.5, slopePerHour: 0.75, judged: true, pod: 'maintpage-operator-7c9f', container: KIND_CONTAINER, spanMinutes: 30 },
      'postgresql-operator': { start: 80, end: 95, slopePerHour: 22.5, judged: false, pod: 'postgresql-operator-55d1', container: LOCAL_CONTAINER, spanMinutes: 4 },
    });
    expect(json.switchLatencyMs).toEqual({ duringFaults: { p50: 1200, p99: 4100, count: 3 }, withoutFaults: { p50: 290, p99: 330, count: 4 } });
    expect(json.workload).toEqual({ 'maintpage toggles': 12, 'databases created': 2 });
    expect(json.retainedObjects).toEqual(['bucket/shop/1/backup-0003.tar.zst']);
    // 7 of the 271 samples, 12:00 to 13:00 every 10 s, were saturated.
    expect(json.machineLoad).toEqual({ cores: 2, samples: 271, cpuBusyPercent: { p50: 35, max: 98 }, load1: { p50: 0.8, max: 4.6 }, saturatedSamplesPercent: (7 * 100) / 271 });
  });

  test('soak-report.md: FAILED with the counts, how to reproduce, and each violation at mm:ss with its evidence', () => {
    expect(markdown.split('\n')[0]).toBe('# Soak FAILED: 2 of 3 invariants broken, 62 violations');
    expect(markdown).toContain('40 min 0 s under workload with 2 faults injected, then 5 min 0 s of settle with neither, through which the MaintPage Services were still probed.');
    expect(markdown).toContain('```sh\nnpm run soak -- --cluster kind --seed 1234 --duration 40m\n```');
    expect(markdown).toContain('| leader-kill | 1 |');
    expect(markdown).toContain('| follower-kill | 0 |');
    expect(markdown).toContain('| maintpage-serves-wanted | 61 | BROKEN |');
    expect(markdown).toContain('| no-orphan-vms | 0 | held |');
    expect(markdown).toContain(`- 12:34 **acknowledged-rows-survive**: ${lostRow.evidence} _(machine then: CPU 98 % busy, load 4.6 on 2 cores)_`);
  });

  test('soak-report.md: lists the first 50 violations and points to the JSON for the rest', () => {
    const listed = markdown.split('\n').filter((line) => /^- \d\d:\d\d \*\*/.test(line));
    expect(listed).toHaveLength(50);
    expect(listed.at(-1)).toBe('- 30:48 **maintpage-serves-wanted**: app shop answered 200 at request 49 while maintenance was wanted _(machine then: CPU 35 % busy, load 0.8 on 2 cores)_');
    expect(markdown).toContain('… and 12 more, see soak-report.json.');
  });

  test('soak-report.md: RSS with the threshold, switch latencies, alerts with the faults beside them, workload, retained objects and the charts', () => {
    expect(markdown).toContain('above 5 MiB/hour counts as a leak where it was judged');
    // kind's containerd gives digests, shortened as docker ps does; the local cluster's node gives names, kept whole.
    expect(markdown).toContain('| maintpage-operator | maintpage-operator-7c9f | 3f1c9a7be2d4 | 61.3 | 64.5 | 0.75 | 30 | yes |');
    expect(markdown).toContain(`| postgresql-operator | postgresql-operator-55d1 | ${LOCAL_CONTAINER.slice('docker://'.length)} | 80.0 | 95.0 | 22.50 | 4 | no |`);
    expect(markdown).toContain('| during faults | 3 | 1200 | 4100 |');
    expect(markdown).toContain('| without faults | 4 | 290 | 330 |');
    expect(markdown).toContain('| PrismUnreachable | severity=warning | 21:00 | 24:00 | prism-outage f2 at 20:00 |');
    expect(markdown).toContain('| maintpage toggles | 12 |');
    expect(markdown).toContain('- `bucket/shop/1/backup-0003.tar.zst`');
    expect(markdown).toContain('![Operator RSS over time](rss.svg)');
    expect(markdown).toContain('![MaintPage switch latency](switch-latency.svg)');
    expect(markdown).toContain('![Work queue depth over time](queue-depth.svg)');
    expect(markdown).toContain('![Machine load over time](machine-load.svg)');
  });

  test('soak-report.md: the machine\'s load over the run, and how much of it was saturated', () => {
    expect(markdown).toContain('| CPU busy | 35 % | 98 % |');
    expect(markdown).toContain('| load average (1 min, 2 cores) | 0.8 | 4.6 |');
    expect(markdown).toContain('Saturated in 3 % of the samples.');
  });

  test('the four charts are SVG drawn from the run\'s data, rendered without loading anything', async () => {
    expect(written.charts).toEqual(['rss.svg', 'switch-latency.svg', 'queue-depth.svg', 'machine-load.svg'].map((file) => join(root, 'failed', file)));
    const [rss, latency, queue, machine] = await Promise.all(written.charts.map((path) => readFile(path, 'utf8')));
    for (const svg of [rss, latency, queue, machine]) expect(svg).toMatch(/^<svg /);
    // Lines per Pod, and the faults injected in the fault legend (and only those).
    expect(rss).toContain('pod: postgresql-operator-55d1');
    expect(rss).toContain('prism-outage');
    expect(rss).not.toContain('etcd-restart');
    expect(latency).toContain('during faults (n = 3)');
    expect(latency).toContain('without faults (n = 4)');
    expect(queue).toContain('nutanix-ahvvm-operator');
    expect(queue).toContain('leader-kill');
    expect(machine).toContain('CPU busy');
    expect(machine).toContain('load average per core');
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

test('a run that broke nothing PASSED, in the JSON and in the headline', async () => {
  const written = await writeSoakReport(join(root, 'passed'), runInput({ invariants: [{ invariant: 'acknowledged-rows-survive', violations: [] }, { invariant: 'no-orphan-vms', violations: [] }] }));
  const json = JSON.parse(await readFile(written.jsonPath, 'utf8')) as SoakReport;
  expect(json.passed).toBe(true);
  expect(json.violations).toEqual([]);
  const markdown = await readFile(written.markdownPath, 'utf8');
  expect(markdown.split('\n')[0]).toBe('# Soak PASSED: all 2 invariants held, 0 violations');
  expect(markdown).toContain('## Violations\n\nNone.');
});

test('a run that measured nothing still writes every chart, each titled "no data"', async () => {
  const written = await writeSoakReport(join(root, 'empty'), runInput({ faults: [], processSamples: [], queueDepth: [], machineLoad: [], switchLatencyMs: { duringFaults: [], withoutFaults: [] }, rss: {}, alerts: [] }));
  const titles = await Promise.all(written.charts.map(async (path) => {
    const svg = await readFile(path, 'utf8');
    expect(svg).toMatch(/^<svg /);
    return /aria-label="Title text '([^']*)'"/.exec(svg)?.[1];
  }));
  expect(titles).toEqual(['Operator RSS (MiB): no data', 'MaintPage switch latency (ms): no data', 'Work queue depth: no data', 'Machine load (% of all cores): no data']);
  const json = JSON.parse(await readFile(written.jsonPath, 'utf8')) as SoakReport;
  expect(json.switchLatencyMs).toEqual({ duringFaults: { p50: null, p99: null, count: 0 }, withoutFaults: { p50: null, p99: null, count: 0 } });
  expect(Object.values(json.faults).every((count) => count === 0)).toBe(true);
  const markdown = await readFile(written.markdownPath, 'utf8');
  expect(markdown).toContain('| during faults | 0 | - | - |');
  expect(markdown).toContain('No RSS was measured.');
  expect(markdown).toContain('## Machine load\n\nThe machine was not sampled.');
  expect(json.machineLoad).toBeNull();
  // No sample, so no violation claims a load.
  expect(json.violations.every((violation) => violation.machine === undefined)).toBe(true);
});
