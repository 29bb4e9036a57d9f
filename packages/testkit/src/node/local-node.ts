import { chmod, mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:https';
import type { V1Pod } from '@kubernetes/client-node';
import { KubeApi, KubeApiError } from '../kube-api.ts';
import { runListWatch } from '../watch-loop.ts';
import { createServingCertificate, type ClusterPki } from '../pki.ts';
import { loadImageMap } from './image-map.ts';
import { PodIpAllocator } from './ip-allocator.ts';
import { startLogServer } from './log-server.ts';
import { PodWorker, type NodeContext } from './pod-worker.ts';
import { HostPathProvisioner } from './provisioner.ts';
import { BUILT_IN_RUNNERS, engineAvailable, projectImageMode, removeOrphanedContainers } from './runners/index.ts';

export interface LocalNodeOptions {
  /** A kubeconfig with rights over Nodes, Pods, Leases, PVs and TokenRequests (testkit uses the admin one). */
  kubeconfig: string;
  /** The cluster's CA, so the node can hand Pods a kubeconfig that verifies the API server. */
  pki: ClusterPki;
  dir: string;
  nodeName?: string;
  /** An image map YAML file merged over the built-in rules (default: TESTKIT_IMAGE_MAP). */
  imageMapFile?: string;
  /** See NodeContext.restartBackoffBaseMs (default 10 s, as the kubelet). */
  restartBackoffBaseMs?: number;
}

const workspaceRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const HEARTBEAT_MS = 10_000;
/** The kubelet's minimumGracePeriodInSeconds, what a force-deleted Pod's containers get between SIGTERM and SIGKILL. */
const FORCE_DELETE_GRACE_MS = 2_000;
const KUBERNETES_VERSION = 'v1.36.5';

/**
 * A process-based kubelet: registers a Node with heartbeats, binds pending Pods to itself (there is no
 * scheduler), runs each Pod through a PodWorker, provisions hostPath volumes for the default StorageClass,
 * and serves container logs to `kubectl logs`.
 */
export class LocalNode {
  readonly nodeName: string;
  readonly #api: KubeApi;
  readonly #context: NodeContext;
  readonly #workers = new Map<string, PodWorker>();
  readonly #abort = new AbortController();
  readonly #provisioner: HostPathProvisioner;
  #heartbeat: NodeJS.Timeout | undefined;
  #logServer: Server | undefined;

  private constructor(api: KubeApi, context: NodeContext) {
    this.#api = api;
    this.#context = context;
    this.nodeName = context.nodeName;
    this.#provisioner = new HostPathProvisioner(api, context.dir);
  }

  static async start(options: LocalNodeOptions): Promise<LocalNode> {
    projectImageMode();
    if (await engineAvailable()) await removeOrphanedContainers();
    const api = await KubeApi.fromKubeconfig(options.kubeconfig);
    const dir = join(options.dir, 'node');
    await mkdir(dir, { recursive: true });
    // PostgreSQL runs as the postgres user: it must be able to reach its data directory below here.
    for (const d of [options.dir, dir]) await chmod(d, 0o755);
    const node = new LocalNode(api, {
      api, dir, nodeName: options.nodeName ?? 'testkit-node', hostIP: '127.0.0.1',
      imageMap: await loadImageMap(options.imageMapFile ?? process.env.TESTKIT_IMAGE_MAP),
      runners: BUILT_IN_RUNNERS, ips: new PodIpAllocator(), cluster: { server: api.server, caFile: options.pki.caCert },
      workspaceRoot, restartBackoffBaseMs: options.restartBackoffBaseMs ?? 10_000,
    });
    const serving = await createServingCertificate(options.pki.caCert.replace(/\/[^/]+$/, ''), options.pki, 'kubelet');
    const logs = await startLogServer({ certFile: serving.cert, keyFile: serving.key, logDirOf: (ns, pod) => node.#logDirOf(ns, pod) });
    node.#logServer = logs.server;
    await node.#register(logs.port);
    await node.#provisioner.start();
    node.#heartbeat = setInterval(() => { void node.#beat(); }, HEARTBEAT_MS);
    void runListWatch<V1Pod>(api, '/api/v1/pods', {
      onList: (pods) => { node.#syncAll(pods); },
      onEvent: (event) => {
        if (event.type === 'DELETED') void node.#workers.get(event.object.metadata?.uid ?? '')?.terminate(false).then(() => node.#workers.delete(event.object.metadata?.uid ?? ''));
        else node.#syncPod(event.object);
      },
    }, node.#abort.signal);
    return node;
  }

  #logDirOf(namespace: string, name: string): string | undefined {
    for (const worker of this.#workers.values()) {
      if (worker.logDir.endsWith(`/${namespace}_${name}_${worker.uid}`)) return worker.logDir;
    }
    return undefined;
  }

  async #register(kubeletPort: number): Promise<void> {
    const name = this.nodeName;
    if (!(await this.#api.get(`/api/v1/nodes/${name}`))) {
      await this.#api.create('/api/v1/nodes', {
        apiVersion: 'v1', kind: 'Node',
        metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': process.arch === 'x64' ? 'amd64' : process.arch, 'node.kubernetes.io/instance-type': 'testkit' } },
        spec: {},
      });
    }
    const resources = { cpu: '8', memory: '32Gi', pods: '250', 'ephemeral-storage': '100Gi' };
    await this.#api.mergePatch(`/api/v1/nodes/${name}/status`, {
      status: {
        capacity: resources, allocatable: resources,
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }, { type: 'Hostname', address: name }],
        daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } },
        nodeInfo: {
          machineID: 'testkit', systemUUID: 'testkit', bootID: 'testkit', kernelVersion: 'host', osImage: `testkit local node on ${hostname()}`,
          containerRuntimeVersion: 'testkit://processes', kubeletVersion: KUBERNETES_VERSION, kubeProxyVersion: '', operatingSystem: 'linux', architecture: process.arch === 'x64' ? 'amd64' : process.arch,
        },
      },
    });
    await this.#beat();
  }

  /** Renews the node Lease and reports Ready: the node lifecycle controller marks silent nodes NotReady. */
  async #beat(): Promise<void> {
    const now = new Date().toISOString();
    // Lease times are MicroTime: six fractional digits.
    const micro = now.replace(/\.(\d{3})Z$/, '.$1000Z');
    const leasePath = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${this.nodeName}`;
    try {
      const lease = await this.#api.get(leasePath);
      if (lease) await this.#api.mergePatch(leasePath, { spec: { renewTime: micro } });
      else await this.#api.create('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.nodeName },
        spec: { holderIdentity: this.nodeName, leaseDurationSeconds: 40, renewTime: micro },
      });
      const seconds = now.replace(/\.\d+Z$/, 'Z');
      const condition = (type: string, status: string, reason: string, message: string): object => ({ type, status, reason, message, lastHeartbeatTime: seconds, lastTransitionTime: seconds });
      await this.#api.mergePatch(`/api/v1/nodes/${this.nodeName}/status`, { status: { conditions: [
        condition('Ready', 'True', 'KubeletReady', 'testkit local node is posting ready status'),
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'ok'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'ok'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'ok'),
      ] } });
    } catch {
      // The API server may be restarting (tests do that on purpose); the next beat tries again.
    }
  }

  #syncAll(pods: V1Pod[]): void {
    const seen = new Set<string>();
    for (const pod of pods) {
      seen.add(pod.metadata?.uid ?? '');
      this.#syncPod(pod);
    }
    for (const [uid, worker] of this.#workers) {
      // Gone without a graceful deletion first: force-deleted (--grace-period=0 --force), which the kubelet answers
      // with its minimum grace period rather than the Pod's terminationGracePeriodSeconds.
      if (!seen.has(uid)) void worker.terminate(false, FORCE_DELETE_GRACE_MS).then(() => this.#workers.delete(uid));
    }
  }

  #syncPod(pod: V1Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) {
      const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
      const ours = (pod.spec?.schedulerName ?? 'default-scheduler') === 'default-scheduler';
      if (ours && !terminal && !pod.metadata?.deletionTimestamp) void this.#bind(pod);
      return;
    }
    if (nodeName !== this.nodeName) return;
    const existing = this.#workers.get(uid);
    if (existing) {
      existing.update(pod);
      return;
    }
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') {
      if (pod.metadata?.deletionTimestamp) void this.#api.delete(`/api/v1/namespaces/${pod.metadata.namespace ?? ''}/pods/${pod.metadata.name ?? ''}`, { gracePeriodSeconds: 0, uid });
      return;
    }
    const worker = new PodWorker(this.#context, pod);
    this.#workers.set(uid, worker);
    worker.start();
  }

  async #bind(pod: V1Pod): Promise<void> {
    const meta = pod.metadata ?? {};
    try {
      await this.#api.create(`/api/v1/namespaces/${meta.namespace ?? ''}/pods/${meta.name ?? ''}/binding`, {
        apiVersion: 'v1', kind: 'Binding', metadata: { name: meta.name, uid: meta.uid }, target: { apiVersion: 'v1', kind: 'Node', name: this.nodeName },
      });
    } catch (error) {
      // 409: already bound (a second event for the same Pod); 404: deleted meanwhile.
      if (!(error instanceof KubeApiError && (error.status === 409 || error.status === 404))) throw error;
    }
  }

  /** Stops every Pod's processes (SIGTERM, then SIGKILL after at most `graceMs`) and the node's loops. */
  async stop(graceMs = 5_000): Promise<void> {
    this.#abort.abort();
    this.#provisioner.stop();
    clearInterval(this.#heartbeat);
    await Promise.all([...this.#workers.values()].map((w) => w.terminate(false, graceMs)));
    this.#logServer?.close();
    this.#logServer?.closeAllConnections();
    await this.#api.close();
  }
}
