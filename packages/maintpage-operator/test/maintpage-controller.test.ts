// The MaintPage controller in this process against a real API server without a node (its Deployments never get Ready
// pods here): what it applies, reports and deletes, reading through the manager's reader and writing Events and status
// through the manager's recorder and status writer, as the operator's main sets it up.
import { fileURLToPath } from 'node:url';
import { KubeClient, Manager, Resources, createLogger, type Controller, type ResourceRef } from '@k8s-operators/controller-core';
import { TestCluster, waitFor } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MaintPageRef } from '../src/api/maintpage-ref.ts';
import type { MaintPage } from '../src/api/maintpage-resource.ts';
import { setupMaintPageController } from '../src/controller/maintpage-controller.ts';

const CRD = fileURLToPath(new URL('../../../deploy/maintpage-operator/crd/maintpage.example.com_maintpages.yaml', import.meta.url));
const NS = 'maintpage-controller';
const POD_NAME = 'maintpage-operator-controller-manager-5c9d7-abcde';

let cluster: TestCluster;
let client: KubeClient;
let manager: Manager;
let controller: Controller;
let running: Promise<void>;

beforeAll(async () => {
  cluster = await TestCluster.start({ node: false });
  const kubectlOk = async (args: string[]): Promise<void> => {
    const result = await cluster.kubectl(args);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  };
  await kubectlOk(['apply', '-f', CRD]);
  await cluster.waitForCrdsEstablished(['maintpages.maintpage.example.com']);
  await kubectlOk(['create', 'namespace', NS]);
  client = await KubeClient.load({ kubeconfig: cluster.adminKubeconfig });
  // Discovery can lag the Established condition by a moment.
  await waitFor(async () => (await cluster.kubectl(['get', 'maintpages', '-n', NS])).code === 0, { what: 'the maintpages resource to be served' });

  await startLeader();
});

/** Starts an operator process's manager and controller, with nothing in memory: the first, or the next leader. */
async function startLeader(): Promise<void> {
  vi.stubEnv('POD_NAME', POD_NAME);
  manager = await Manager.create({
    name: 'maintpage-operator', kubeconfig: cluster.adminKubeconfig, namespace: NS, logger: createLogger({ level: 'silent' }),
    leaderElection: { enabled: false }, healthProbeBindAddress: '0', metricsBindAddress: '0',
  });
  vi.unstubAllEnvs();
  controller = setupMaintPageController(manager, { pageServerImage: 'ghcr.io/k8s-operators/maintpage-page-server:0.1.0' });
  running = manager.start();
}

afterAll(async () => {
  manager.stop();
  await running;
  await client.close();
  await cluster.stop();
});

function maintPage(name: string, appname: string): MaintPage {
  return {
    apiVersion: 'maintpage.example.com/v1alpha1', kind: 'MaintPage', metadata: { name, namespace: NS },
    spec: {
      maintpageconfig: { maintpagetoggle: false, maintpageimage: 'quay.io/daein/maintpage:latest' },
      appconfig: { appname, appimage: 'quay.io/daein/prodpage:latest' },
    },
  };
}

const exists = async (ref: ResourceRef, name: string): Promise<boolean> =>
  (await client.get(ref, { namespace: NS, name })) !== undefined;

/** Marks the MaintPage's maintenance pods Ready, as the kubelet would report them. */
async function maintenancePodsReady(instance: string): Promise<void> {
  const pods = await client.list(Resources.Pod, { namespace: NS, labelSelector: `maintpage.example.com/instance=${instance},maintpage.example.com/role=maintenance` });
  expect(pods.items.length).toBeGreaterThan(0);
  for (const pod of pods.items) {
    await client.patchStatus(Resources.Pod, { namespace: NS, name: pod.metadata?.name ?? '' }, {
      type: 'merge',
      patch: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }] } },
    });
  }
}

describe('the MaintPage controller', () => {
  it('reports a Service it does not own as a Conflict, in status and in an Event from this Pod', async () => {
    await client.create(Resources.Service, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'taken', namespace: NS }, spec: { ports: [{ port: 80 }] } });
    await client.create(MaintPageRef, maintPage('blocked', 'taken'));

    const blocked = await waitFor(async () => {
      const stored = await client.get(MaintPageRef, { namespace: NS, name: 'blocked' });
      return stored?.status?.conditions?.find((c) => c.type === 'Ready' && c.reason === 'Conflict');
    }, { what: 'the MaintPage to report Ready=False Conflict' });
    expect(blocked.status).toBe('False');
    const events = await waitFor(async () => {
      const list = await client.list(Resources.Event, { namespace: NS });
      const about = list.items.filter((e) => e.regarding?.name === 'blocked' && e.reason === 'Conflict');
      return about.length > 0 ? about : undefined;
    }, { what: 'a Conflict Event about the MaintPage' });
    expect(events.map((e) => ({ controller: e.reportingController, instance: e.reportingInstance, type: e.type }))).toEqual([
      { controller: 'maintpage.example.com/maintpage-operator', instance: POD_NAME, type: 'Warning' },
    ]);
  });

  it('applies the app and maintenance objects, and deletes those it controls under a name it no longer uses, only those', async () => {
    await client.create(MaintPageRef, maintPage('shop', 'web'));
    await waitFor(async () => (await exists(Resources.Deployment, 'web')) && (await exists(Resources.Service, 'web')) && (await exists(Resources.Deployment, 'shop-maintpage')), {
      what: 'the app Deployment and Service and the maintenance Deployment',
    });

    await client.patch(MaintPageRef, { namespace: NS, name: 'shop' }, { type: 'merge', patch: { spec: { appconfig: { appname: 'web2' } } } });
    await waitFor(async () => (await exists(Resources.Deployment, 'web2')) && (await exists(Resources.Service, 'web2')), { what: 'the renamed app Deployment and Service' });
    await waitFor(async () => !(await exists(Resources.Deployment, 'web')) && !(await exists(Resources.Service, 'web')), { what: 'the old app Deployment and Service to be deleted' });
    expect(await exists(Resources.Deployment, 'shop-maintpage')).toBe(true);
    // The first test's Service, which no MaintPage controls.
    expect(await exists(Resources.Service, 'taken')).toBe(true);
  });

  it('times a switch that waited for Ready pods from when the wait began, across a change of leader', async () => {
    await client.create(MaintPageRef, maintPage('timed', 'timed-app'));
    await waitFor(() => exists(Resources.Service, 'timed-app'), { what: 'the app Service' });
    await client.patch(MaintPageRef, { namespace: NS, name: 'timed' }, { type: 'merge', patch: { spec: { maintpageconfig: { maintpagetoggle: true } } } });
    // No node runs the maintenance pods, so the switch waits.
    const wantedTime = await waitFor(async () => (await client.get(MaintPageRef, { namespace: NS, name: 'timed' }))?.status?.switchWantedTime, {
      what: 'the MaintPage to record when the switch was first wanted',
    });

    // The leader changes: this process stops, the spec is edited meanwhile, and one with nothing in memory takes over.
    manager.stop();
    await running;
    const edited = await client.patch(MaintPageRef, { namespace: NS, name: 'timed' }, { type: 'merge', patch: { spec: { maintpageconfig: { replicas: 2 } } } });
    await startLeader();
    const continued = await waitFor(async () => {
      const stored = await client.get(MaintPageRef, { namespace: NS, name: 'timed' });
      return stored?.status?.observedGeneration === edited.metadata.generation ? stored : undefined;
    }, { what: 'the new leader to reconcile the edited MaintPage' });
    expect(continued.status?.switchWantedTime).toBe(wantedTime);

    // A maintenance pod becomes Ready, and the new leader switches.
    const readyAt = Date.now();
    await maintenancePodsReady('timed');
    const switched = await waitFor(async () => {
      const stored = await client.get(MaintPageRef, { namespace: NS, name: 'timed' });
      return stored?.status?.maintpublishstatus === 'Published' ? stored : undefined;
    }, { what: 'the Service to switch to the maintenance page' });
    expect(switched.status?.switchWantedTime).toBeUndefined();

    // As /metrics shows it.
    const exposition = await manager.metrics.registry.getSingleMetricAsString('maintpage_switch_latency_seconds');
    const observed = (suffix: string): number | undefined => {
      const line = exposition.split('\n').find((l) => l.startsWith(`maintpage_switch_latency_seconds_${suffix}{to="maintenance"} `));
      return line === undefined ? undefined : Number(line.split(' ')[1]);
    };
    expect(observed('count')).toBe(1);
    // From the first leader's wish, not from the new leader's start.
    expect(observed('sum')).toBeGreaterThanOrEqual((readyAt - Date.parse(wantedTime)) / 1000);
  });

  // Runs last: it stops the MaintPage informer of the manager running now.
  it('keeps the switch it just reported when the next reconcile runs before the MaintPage\'s own event arrives', async () => {
    const key = { namespace: NS, name: 'quick' };
    await client.create(MaintPageRef, maintPage('quick', 'quick-app'));
    await waitFor(() => exists(Resources.Deployment, 'quick-app'), { what: 'the app Deployment' });
    await client.patch(MaintPageRef, key, { type: 'merge', patch: { spec: { maintpageconfig: { maintpagetoggle: true } } } });
    const maintPages = manager.informerFor(MaintPageRef);
    await waitFor(() => maintPages.cache.get(`${NS}/quick`)?.status?.switchWantedTime, { what: 'the cache to show the switch waiting for Ready pods' });

    // From here the MaintPage's own events do not arrive, as a watch that lags behind the status writes.
    await maintPages.stop();
    await maintenancePodsReady('quick');
    const switched = await waitFor(async () => {
      const stored = await client.get(MaintPageRef, key);
      return stored?.status?.maintpublishstatus === 'Published' ? stored : undefined;
    }, { what: 'the Service to switch to the maintenance page' });
    expect(switched.status?.lastSwitchTime).toBeDefined();

    // An owned object's event wakes the next reconcile: a hand-made image change it reverts.
    await client.patch(Resources.Deployment, { namespace: NS, name: 'quick-app' }, {
      type: 'json', patch: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'example.com/hand-made:1' }],
    });
    await waitFor(async () => (await client.get(Resources.Deployment, { namespace: NS, name: 'quick-app' }))?.spec?.template.spec?.containers[0]?.image === 'quay.io/daein/prodpage:latest', {
      what: 'the reconcile to revert the image',
    });
    await waitFor(() => {
      const queue = controller.queue.snapshot();
      return queue.processing.length === 0 && queue.queued.length === 0;
    }, { what: 'that reconcile to finish' });

    // It read the status it had just written, not the cache's: the switch stays reported.
    const after = await client.get(MaintPageRef, key);
    expect(after?.status?.maintpublishstatus).toBe('Published');
    expect(after?.status?.lastSwitchTime).toBe(switched.status?.lastSwitchTime);
    expect(after?.status?.switchWantedTime).toBeUndefined();
  });
});
