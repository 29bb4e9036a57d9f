// npm run bench -- maintpage [--toggles 20]: how long from a toggle (kubectl patch) to the Service's EndpointSlice
// listing only Ready pods of the other set. The controller runs in this process against testkit's cluster, whose
// local node runs the app and maintenance pods. Prints figures; the last line is one JSON object.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Manager } from '@k8s-operators/controller-core';
import { REPOSITORY_ROOT, TestCluster, waitFor } from '@k8s-operators/testkit';
import pino from 'pino';
import { setupMaintPageController } from '../src/index.ts';

const { values } = parseArgs({ options: { toggles: { type: 'string', default: '20' } } });
const toggles = Number(values.toggles);
const NS = 'bench';

interface Slice { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }
interface Pods { items: { status?: { podIP?: string; phase?: string } }[] }

const cluster = await TestCluster.start();
const api = await cluster.admin();
const kubectl = async (args: string[], input?: string): Promise<string> => {
  const result = await cluster.kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};
try {
  await kubectl(['apply', '-k', join(REPOSITORY_ROOT, 'deploy/maintpage-operator/crd')]);
  await cluster.waitForCrdsEstablished(['maintpages.maintpage.example.com']);
  await kubectl(['create', 'namespace', NS]);
  const manager = await Manager.create({
    name: 'maintpage-operator', kubeconfig: cluster.adminKubeconfig, logger: pino({ level: 'silent' }),
    leaderElection: { enabled: false }, healthProbeBindAddress: '0', metricsBindAddress: '0',
  });
  setupMaintPageController(manager, { pageServerImage: 'ghcr.io/k8s-operators/maintpage-page-server:0.1.0' });
  const running = manager.start();

  await kubectl(['-n', NS, 'apply', '-f', '-'], `
apiVersion: maintpage.example.com/v1alpha1
kind: MaintPage
metadata: {name: bench}
spec:
  maintpageconfig: {maintpagetoggle: false, maintpageimage: quay.io/daein/maintpage:latest}
  appconfig: {appname: web, appimage: quay.io/daein/prodpage:latest}
`);
  const readyAddresses = async (): Promise<string> => {
    const slices = await api.get<{ items: Slice[] }>(`/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb`);
    return (slices?.items ?? []).flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready).flatMap((e) => e.addresses).sort().join(',');
  };
  const podsOf = async (role: string): Promise<string> => {
    const pods = await api.get<Pods>(`/api/v1/namespaces/${NS}/pods?labelSelector=maintpage.example.com%2Frole%3D${role}`);
    return (pods?.items ?? []).filter((p) => p.status?.phase === 'Running').map((p) => p.status?.podIP ?? '').sort().join(',');
  };
  await waitFor(async () => (await podsOf('maintenance')) !== '' && (await readyAddresses()) === (await podsOf('app')), { what: 'the app to be served', timeoutMs: 120_000 });
  const targets = { app: await podsOf('app'), maintenance: await podsOf('maintenance') };
  console.log(`app pods ${targets.app}, maintenance pods ${targets.maintenance}; toggling ${toggles} times`);

  const latencies: number[] = [];
  for (let i = 1; i <= toggles; i++) {
    const on = i % 2 === 1;
    const started = performance.now();
    await kubectl(['-n', NS, 'patch', 'maintpage', 'bench', '--type=merge', '-p', JSON.stringify({ spec: { maintpageconfig: { maintpagetoggle: on } } })]);
    const want = on ? targets.maintenance : targets.app;
    await waitFor(async () => (await readyAddresses()) === want, { what: `toggle ${i} to switch the EndpointSlice`, timeoutMs: 60_000, intervalMs: 5 });
    const ms = performance.now() - started;
    latencies.push(ms);
    console.log(`toggle ${String(i).padStart(2)} → ${on ? 'maintenance' : 'app        '}  ${ms.toFixed(0)} ms`);
  }
  manager.stop();
  await running;

  const sorted = [...latencies].sort((a, b) => a - b);
  const quantile = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  const result = {
    benchmark: 'maintpage', toggles,
    p50_ms: Math.round(quantile(0.5)), p99_ms: Math.round(quantile(0.99)),
    min_ms: Math.round(sorted[0] ?? Number.NaN), max_ms: Math.round(sorted.at(-1) ?? Number.NaN),
    measured_from: 'kubectl patch of maintpagetoggle', measured_to: 'EndpointSlice lists exactly the Ready pods of the other set',
    target_p50_ms: 1000,
  };
  console.log(`p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms (target p50 < 1000 ms)`);
  console.log(JSON.stringify(result));
} finally {
  await cluster.stop();
}
