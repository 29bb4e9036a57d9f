// One soak run: install, prepare the workload, run the workload, the samplers and the fault schedule side by side for
// the duration, let everything settle, check every invariant, write the report. Progress every 15 s. Whatever it
// started is stopped at the end, also when the run fails or is interrupted. The MaintPage probes go on through the
// settle: the operator's answer to a wish made just before the workload stopped is seen, not cut off.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startKindSoakCluster } from './cluster/kind-cluster.ts';
import { startLocalSoakCluster } from './cluster/local-cluster.ts';
import type { SoakCluster } from './cluster/soak-cluster.ts';
import { shippedAlertExpectations } from './alert-expectations.ts';
import { FAULT_FREE_START_MS, nutanixSwitchAtMs, planFaults, type PlannedFault } from './fault-schedule.ts';
import { injectFault, type FaultTargets } from './faults/inject-fault.ts';
import { install, type Installed } from './install.ts';
import { saveClusterState } from './cluster-state.ts';
import { alertsBesideFaults, checkAllInvariants, LEAK_SLOPE_MIB_PER_HOUR, retainedObjects, rssSlopes, switchLatencies } from './invariants/index.ts';
import { aborted, repeat, sleep } from './loop.ts';
import { observeMachine } from './observers/machine-observer.ts';
import { observeOperators } from './observers/operator-observer.ts';
import { observePrometheus } from './observers/prometheus-observer.ts';
import type { SoakOptions } from './options.ts';
import { seededRandom } from './random.ts';
import { newRecorder, type Recorder } from './recorder.ts';
import { writeSoakReport } from './report/write-soak-report.ts';
import { settleFindings } from './settle.ts';
import type { InvariantResult } from './timeline.ts';
import { maintPageWorkload } from './workload/maintpage-workload.ts';
import { nutanixWorkload } from './workload/nutanix-workload.ts';
import { postgresqlWorkload } from './workload/postgresql-workload.ts';

/** Invariants that can be judged while the run goes on (the others need the settle's findings). */
const JUDGED_DURING_RUN = /^(nutanix\.duplicateVms|postgresql\.(servedBeforeRestore|fewerRowsThanBackup|mixedRestore|readyButNotServing|completedNotVerified)|maintpage\.|operators\.crashes)/;

export interface SoakOutcome { jsonPath: string; passed: boolean }

const minutes = (ms: number): string => `${String(Math.floor(ms / 60_000))}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;

/** What the loops could not do (an API call refused during a restart, say): counted for the report, never hidden. */
function errorLog(say: (line: string) => void): { onError: (what: string, error: unknown) => void; counts: () => Record<string, number> } {
  const seen = new Map<string, number>();
  return {
    onError: (what, error) => {
      const count = (seen.get(what) ?? 0) + 1;
      seen.set(what, count);
      // The first of each kind is shown in full; repeats are in the report's counts.
      if (count === 1) say(`soak: ${what} failed (repeats are counted, not shown): ${(error as Error).message.split('\n')[0] ?? ''}`);
    },
    counts: () => Object.fromEntries([...seen].map(([what, n]) => [`workload errors: ${what}`, n])),
  };
}

export async function runSoak(options: SoakOptions, interrupted: AbortSignal, say: (line: string) => void): Promise<SoakOutcome> {
  const random = seededRandom(options.seed);
  const plan = planFaults(options.durationMs, random.fork());
  const command = `npm run soak -- --duration ${String(Math.round(options.durationMs / 1000))}s --cluster ${options.cluster} --seed ${String(options.seed)} --rate ${String(options.rate)} --settle ${String(Math.round(options.settleMs / 1000))}s`;
  say(`soak: seed ${String(options.seed)}, ${minutes(options.durationMs)} with ${String(plan.length)} faults, then ${minutes(options.settleMs)} to settle; report in ${options.outDir}`);
  say(`soak: to repeat this run: ${command}`);
  await mkdir(options.outDir, { recursive: true });

  const errors = errorLog(say);
  // An interruption at any point stops the run; each set-up step that takes long is followed by a look at it.
  const running = new AbortController();
  // What observes the MaintPage Services outlives `running` by the settle.
  const observing = new AbortController();
  const stopRunning = (): void => { running.abort(); observing.abort(); };
  interrupted.addEventListener('abort', stopRunning, { once: true });
  const goOn = (): void => { if (aborted(interrupted)) throw new Error('interrupted'); };
  let cluster: SoakCluster | undefined;
  let installed: Installed | undefined;
  try {
    goOn();
    if (options.cluster === 'kind') {
      say('soak: starting a kind cluster of its own (kind/soak-cluster.sh: the cluster, the four images built and loaded)');
      cluster = await startKindSoakCluster(say, interrupted);
    } else {
      say('soak: starting the local cluster (etcd, kube-apiserver, kube-controller-manager, a local node)');
      cluster = await startLocalSoakCluster();
    }
    goOn();
    installed = await install(cluster, say);
    goOn();
    const recorder = newRecorder(options.seed, options.cluster);
    recorder.alertExpectations = await shippedAlertExpectations();
    const maintpage = maintPageWorkload(cluster, recorder, random.fork(), errors.onError);
    const postgresql = postgresqlWorkload(cluster, installed.seaweed, recorder, random.fork());
    const nutanix = nutanixWorkload(cluster, installed.prism, recorder, random.fork(), errors.onError);
    say('soak: preparing the workload (MaintPages answering, databases serving, first AhvVms)');
    await Promise.all([maintpage.prepare(), postgresql.prepare(), nutanix.prepare()]);
    goOn();

    const started = Date.now();
    recorder.startedAt = started;
    recorder.warmupEndsAt = started + Math.min(10 * 60_000, options.durationMs / 4);
    const injectedKills = new Set<string>();
    const targets: FaultTargets = { cluster, prism: installed.prism, seaweed: installed.seaweed, postgresql, random: random.fork(), injectedKills };
    const { prometheus } = installed;
    // While the run goes on, the probes so far are all there is: the last wish of each app is judged up to now.
    const liveViolations = (): number => checkAllInvariants({ ...recorder, observedUntil: Date.now() }).filter((r) => JUDGED_DURING_RUN.test(r.invariant)).reduce((n, r) => n + r.violations.length, 0);

    // The operators are watched through the settle as well: a crash there is as much a finding as one under faults.
    const observation = Promise.all([maintpage.observe(observing.signal), observeOperators(cluster, recorder, injectedKills, observing.signal, errors.onError), observeMachine(recorder, observing.signal, errors.onError)]);
    const loops = [
      observePrometheus(prometheus, recorder, running.signal, errors.onError),
      nutanix.sample(running.signal),
      maintpage.run(running.signal),
      postgresql.run(running.signal),
      // The workload's operations on PostgreSQL and AhvVms, alternating, at the configured rate.
      (async () => {
        let turn = 0;
        await repeat(running.signal, 60_000 / options.rate, async () => {
          await (turn++ % 2 === 0 ? postgresql.act() : nutanix.act());
        }, (error) => { errors.onError('a workload operation', error); });
      })(),
      (async () => {
        await sleep(nutanixSwitchAtMs(options.durationMs), running.signal);
        if (aborted(running.signal)) return;
        say('soak: half-time: the nutanix operator switches from Prism v3 to v4 (Secret changed, rolling restart)');
        await nutanix.switchToV4().catch((error: unknown) => { errors.onError('switching the nutanix operator to v4', error); });
      })(),
      runFaults(plan, targets, started, running.signal, recorder, say),
      repeat(running.signal, 15_000, () => {
        const machine = recorder.machineLoad.at(-1);
        const load = machine ? `; machine CPU ${String(Math.round(machine.cpuBusyPercent))} % busy, load ${machine.load1.toFixed(1)} on ${String(machine.cores)} cores` : '';
        say(`soak: ${minutes(Date.now() - started)} of ${minutes(options.durationMs)}: ${String(recorder.faults.length)} faults injected, ${String(liveViolations())} violations so far${load}`);
        return Promise.resolve();
      }, () => undefined),
    ];
    await sleep(options.durationMs, running.signal);
    running.abort();
    await Promise.all(loops);
    goOn();

    recorder.settleStartedAt = Date.now();
    say(`soak: the workload and the faults stopped; settling for ${minutes(options.settleMs)} (the MaintPage Services are still probed)`);
    await sleep(options.settleMs, interrupted);
    observing.abort();
    await observation;
    recorder.observedUntil = Date.now();
    goOn();
    // What the settle cannot look at fails the run (soak.uncheckable), and the report is still written.
    await settleFindings(cluster, installed.prism, installed.seaweed, prometheus, recorder, postgresql.deletedDatabases())
      .catch((error: unknown) => { recorder.settle.uncheckable.push(`what the settle looks at (${(error as Error).message})`); });
    recorder.endedAt = Date.now();

    const invariants = checkAllInvariants(recorder);
    await writeFile(join(options.outDir, 'soak-timeline.json'), JSON.stringify(recorder));
    const report = await writeSoakReport(options.outDir, {
      seed: options.seed, cluster: options.cluster, command,
      startedAt: recorder.startedAt, settleStartedAt: recorder.settleStartedAt, endedAt: recorder.endedAt,
      faults: recorder.faults, invariants,
      rss: Object.fromEntries(rssSlopes(recorder).map((slope) => [slope.operator, slope])),
      processSamples: recorder.processSamples, queueDepth: recorder.queueDepth, machineLoad: recorder.machineLoad,
      switchLatencyMs: switchLatencies(recorder),
      alerts: alertsBesideFaults(recorder),
      retainedObjects: retainedObjects(recorder).map((o) => `${o.store}: ${o.key}`),
      workload: { ...maintpage.counts(), ...postgresql.counts(), ...nutanix.counts(), ...errors.counts() },
      leakSlopeMiBPerHour: LEAK_SLOPE_MIB_PER_HOUR,
    });
    summarize(invariants, say);
    return { jsonPath: report.jsonPath, passed: invariants.every((r) => r.violations.length === 0) };
  } catch (error) {
    if (cluster) {
      await saveClusterState(cluster, options.outDir)
        .then((path) => { say(`soak: the cluster's Pods and Events when the run failed: ${path}`); })
        .catch((reason: unknown) => { say(`soak: could not save the cluster's state: ${(reason as Error).message}`); });
    }
    throw error;
  } finally {
    interrupted.removeEventListener('abort', stopRunning);
    running.abort();
    observing.abort();
    say('soak: stopping everything it started');
    await installed?.stop().catch((error: unknown) => { say(`soak: stopping Prometheus, SeaweedFS or Prism failed: ${(error as Error).message}`); });
    await cluster?.close().catch((error: unknown) => { say(`soak: stopping the cluster failed: ${(error as Error).message}`); });
  }
}

/** Injects each planned fault at its time, one after the other, until the run ends. */
async function runFaults(plan: readonly PlannedFault[], targets: FaultTargets, started: number, signal: AbortSignal, recorder: Recorder, say: (line: string) => void): Promise<void> {
  await sleep(FAULT_FREE_START_MS, signal);
  for (const [index, fault] of [...plan].sort((a, b) => a.atMs - b.atMs).entries()) {
    await sleep(started + fault.atMs - Date.now(), signal);
    if (aborted(signal)) return;
    const record = await injectFault(fault, index, targets, signal);
    recorder.faults.push(record);
    say(`soak: fault ${record.id} ${record.kind} on ${record.target}: ${record.detail}`);
  }
}

function summarize(invariants: readonly InvariantResult[], say: (line: string) => void): void {
  const broken = invariants.filter((r) => r.violations.length > 0);
  if (broken.length === 0) {
    say(`soak: PASSED: all ${String(invariants.length)} invariants held`);
    return;
  }
  say(`soak: FAILED: ${broken.map((r) => `${r.invariant} ${String(r.violations.length)}`).join(', ')}`);
  for (const violation of broken.flatMap((r) => r.violations).slice(0, 20)) say(`  ${violation.invariant}: ${violation.evidence}`);
}
