// MaintPages on several apps, switched by a toggle or by schedule windows that open and close by themselves; a prober
// sends real HTTP requests through each app's Service (to one of its ready endpoints, as kube-proxy would) and records
// what answered; the Services' EndpointSlices and the Pods are sampled every 100 ms. The switching stops with the
// workload; the probing and the sampling go on through the settle, so that a switch asked for just before the workload
// stopped (or by a schedule window the spec still holds) is seen, or seen not to happen.
import type { Random } from '../random.ts';
import type { Recorder } from '../recorder.ts';
import { aborted, repeat, sleep } from '../loop.ts';
import type { SoakCluster } from '../cluster/soak-cluster.ts';
import { watchObjects, type KubeObject } from '../watched-objects.ts';
import { MIN_HOLD_MS, type ProbeResult } from '../timeline.ts';

export const MAINTPAGE_NAMESPACE = 'soak-maintpage';
/** Toggled apps, and the one switched by schedule windows. */
const TOGGLED_APPS = ['shop', 'blog'];
const WINDOW_APP = 'docs';

interface Slice extends KubeObject { endpoints?: { addresses: string[]; conditions?: { ready?: boolean; terminating?: boolean }; targetRef?: { name: string } }[] }
interface Pod extends KubeObject { status?: { podIP?: string; conditions?: { type: string; status: string }[] } }

const isPodReady = (pod: Pod | undefined): boolean => pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

function maintPage(app: string): string {
  return JSON.stringify({
    apiVersion: 'maintpage.example.com/v1alpha1', kind: 'MaintPage', metadata: { name: app, namespace: MAINTPAGE_NAMESPACE },
    spec: {
      maintpageconfig: { maintpagetoggle: false, page: { message: 'The soak is switching this app.', retryAfterSeconds: 60 } },
      appconfig: { appname: app, appimage: 'quay.io/daein/prodpage:latest' },
    },
  });
}

/** A whole-second RFC 3339 time, as the schedule's fields take it. */
const rfc3339 = (ms: number): string => new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface MaintPageWorkload {
  /** Creates the MaintPages and waits until each app answers through its Service. */
  prepare(): Promise<void>;
  /**
   * Switches the apps (toggles, schedule windows) until the signal aborts. The last window written stays in the spec,
   * so it still opens and closes by itself after that.
   */
  run(signal: AbortSignal): Promise<void>;
  /**
   * Probes each app's Service and samples its EndpointSlices and Pods until the signal aborts, then stops watching
   * them. Meant to outlast `run`: the operator's switches are judged by what this sees.
   */
  observe(signal: AbortSignal): Promise<void>;
  counts(): Record<string, number>;
}

export function maintPageWorkload(cluster: SoakCluster, recorder: Recorder, random: Random, onError: (what: string, error: unknown) => void): MaintPageWorkload {
  const apps = [...TOGGLED_APPS, WINDOW_APP];
  const counts = { 'maintpage toggles': 0, 'maintpage schedule windows': 0, 'maintpage probes': 0 };
  const sliceOf = new Map<string, Slice>();
  const pods = new Map<string, Pod>();
  const watchAbort = new AbortController();

  const readyAddresses = (app: string): string[] =>
    (sliceOf.get(app)?.endpoints ?? []).filter((e) => e.conditions?.ready === true && e.conditions.terminating !== true).flatMap((e) => e.addresses);

  async function probe(app: string): Promise<ProbeResult> {
    const at = Date.now();
    const addresses = readyAddresses(app);
    if (addresses.length === 0) return { app, at, answered: 'error', error: 'the Service has no ready endpoint' };
    const address = random.pick(addresses);
    try {
      const response = await fetch(`http://${address}:8080/`, { signal: AbortSignal.timeout(2_000) });
      const body = await response.text();
      if (response.status === 503 && response.headers.get('retry-after') !== null) return { app, at, answered: 'page', status: 503 };
      if (response.status === 200 && body.includes('Production Page')) return { app, at, answered: 'app', status: 200 };
      return { app, at, answered: 'error', status: response.status, error: `unexpected answer from ${address}: ${body.slice(0, 80)}` };
    } catch (error) {
      return { app, at, answered: 'error', error: `${address}: ${(error as Error).message}` };
    }
  }

  const patch = (app: string, maintpageconfig: Record<string, unknown>): Promise<string> =>
    cluster.kubectlOk(['-n', MAINTPAGE_NAMESPACE, 'patch', 'maintpage', app, '--type=merge', '-p', JSON.stringify({ spec: { maintpageconfig } })]);

  async function toggleLoop(app: string, signal: AbortSignal): Promise<void> {
    let wanted = false;
    while (!signal.aborted) {
      await sleep(MIN_HOLD_MS + random.int(0, 60_000), signal);
      if (aborted(signal)) return;
      // The change is timed from the request: the operator may switch before kubectl has returned.
      const requested = Date.now();
      try {
        await patch(app, { maintpagetoggle: !wanted });
        wanted = !wanted;
        recorder.wanted.push({ app, at: requested, wanted, how: 'toggle' });
        counts['maintpage toggles']++;
      } catch (error) {
        // The patch may have failed during an API server restart; the next round tries again.
        onError(`toggling MaintPage ${app}`, error);
      }
    }
  }

  async function windowLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      // A window that opens 20 s from now and stays open one to two minutes; the next opens after it closed.
      const start = Math.ceil((Date.now() + 20_000) / 1000) * 1000;
      const end = start + MIN_HOLD_MS + random.int(0, 60) * 1000;
      try {
        await patch(WINDOW_APP, { schedule: { start: rfc3339(start), end: rfc3339(end) } });
        recorder.wanted.push({ app: WINDOW_APP, at: start, wanted: true, how: 'window' }, { app: WINDOW_APP, at: end, wanted: false, how: 'window' });
        counts['maintpage schedule windows']++;
      } catch (error) {
        onError(`scheduling a window on MaintPage ${WINDOW_APP}`, error);
      }
      await sleep(end - Date.now() + MIN_HOLD_MS + random.int(0, 30_000), signal);
    }
  }

  return {
    counts: () => ({ ...counts }),
    async prepare() {
      await cluster.kubectlOk(['create', 'namespace', MAINTPAGE_NAMESPACE]);
      for (const app of apps) await cluster.kubectlOk(['apply', '-f', '-'], { input: maintPage(app) });
      const slices = watchObjects<Slice>(cluster.api, `/apis/discovery.k8s.io/v1/namespaces/${MAINTPAGE_NAMESPACE}/endpointslices`, watchAbort.signal, (type, slice) => {
        const app = slice.metadata.labels?.['kubernetes.io/service-name'];
        if (app === undefined) return;
        if (type === 'DELETED') sliceOf.delete(app);
        else sliceOf.set(app, slice);
      });
      const watchedPods = watchObjects<Pod>(cluster.api, `/api/v1/namespaces/${MAINTPAGE_NAMESPACE}/pods`, watchAbort.signal, (type, pod) => {
        if (type === 'DELETED') pods.delete(pod.metadata.name);
        else pods.set(pod.metadata.name, pod);
      });
      await Promise.all([slices.synced, watchedPods.synced]);
      for (const app of apps) {
        const deadline = Date.now() + 180_000;
        while ((await probe(app)).answered !== 'app') {
          if (Date.now() > deadline) throw new Error(`MaintPage ${app}'s app never answered through its Service within 3 min`);
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        recorder.wanted.push({ app, at: Date.now(), wanted: false, how: 'initial' });
      }
    },
    async run(signal) {
      await Promise.all([...TOGGLED_APPS.map((app) => toggleLoop(app, signal)), windowLoop(signal)]);
    },
    async observe(signal) {
      // A sample is kept when it differs from the app's previous one: an hour of 100 ms samples of a quiet Service
      // would be 36,000 copies of the same endpoints.
      const previous = new Map<string, string>();
      const sampler = repeat(signal, 100, () => {
        const at = Date.now();
        for (const app of apps) {
          const endpoints = (sliceOf.get(app)?.endpoints ?? []).map((e) => ({
            pod: e.targetRef?.name ?? e.addresses.join(','), ready: e.conditions?.ready === true, terminating: e.conditions?.terminating === true,
            podReady: isPodReady(pods.get(e.targetRef?.name ?? '')),
          }));
          const shape = JSON.stringify(endpoints);
          if (previous.get(app) === shape) continue;
          previous.set(app, shape);
          recorder.endpointSamples.push({ app, at, endpoints });
        }
        return Promise.resolve();
      }, (error) => { onError('sampling EndpointSlices', error); });
      const probers = apps.map((app) => repeat(signal, 250, async () => {
        recorder.probes.push(await probe(app));
        counts['maintpage probes']++;
      }, (error) => { onError(`probing ${app}`, error); }));
      try {
        await Promise.all([sampler, ...probers]);
      } finally {
        watchAbort.abort();
      }
    },
  };
}
