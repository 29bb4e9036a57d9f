// The soak on a kind cluster of its own (kind/soak-cluster.sh makes it and deletes it). Below the API: the control
// plane's parts are static Pods in the node, restarted by stopping their container there (the kubelet starts it again,
// as after a crash); a Pod's container is containerd's in the node, SIGKILLed there by its PID; and every process in
// the node is also a process of this machine, found by its container's cgroup, so /proc is read here as on the local
// cluster.
import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { KubeApi, REPOSITORY_ROOT } from '@k8s-operators/testkit';
import { hostPidOfContainer } from './container-process.ts';
import { succeeding, type SoakCluster } from './soak-cluster.ts';

const run = promisify(execFile);
const SCRIPT = join(REPOSITORY_ROOT, 'kind', 'soak-cluster.sh');
/** How long a restarted control-plane component may take to serve again before the fault is said to have failed. */
const CONTROL_PLANE_BACK_MS = 180_000;

interface SoakClusterUp { cluster: string; kubeconfig: string; kubectl: string; node: string; gateway: string; overlays: string }

/** Runs kind/soak-cluster.sh, its progress shown line by line, and returns what it printed on stdout. */
function soakClusterScript(command: 'up' | 'down', say: (line: string) => void, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, command], { stdio: ['ignore', 'pipe', 'pipe'], ...(signal ? { signal } : {}) });
    let stdout = '';
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split(/\r?\n|\r/);
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') say(`  ${line}`);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (partial.trim() !== '') say(`  ${partial}`);
      if (code === 0) resolve(stdout);
      else reject(new Error(`kind/soak-cluster.sh ${command} failed (exit ${String(code)}); its output is above`));
    });
  });
}

/** Makes the cluster; whatever part of it was made is deleted again when that fails or `interrupted` aborts it. */
export async function startKindSoakCluster(say: (line: string) => void, interrupted: AbortSignal): Promise<SoakCluster> {
  let up: SoakClusterUp;
  try {
    up = JSON.parse(await soakClusterScript('up', say, interrupted)) as SoakClusterUp;
  } catch (error) {
    say('soak: deleting what was made of the kind cluster');
    await soakClusterScript('down', say).catch(() => undefined);
    throw error;
  }
  const api = await KubeApi.fromKubeconfig(up.kubeconfig);
  const kubectl: SoakCluster['kubectl'] = (args, options = {}) => new Promise((resolve) => {
    const child = execFile(up.kubectl, args, { env: { ...process.env, KUBECONFIG: up.kubeconfig }, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
  const inNode = async (args: readonly string[]): Promise<string> => (await run('docker', ['exec', up.node, ...args], { timeout: 60_000 })).stdout.trim();
  const containerIdOf = (containerID: string): string => {
    const match = /^containerd:\/\/([0-9a-f]+)$/.exec(containerID);
    if (!match?.[1]) throw new Error(`cannot act on container ${containerID}: a kind node runs containerd's (containerd://<id>)`);
    return match[1];
  };
  /** Stops a static Pod's container in the node and waits until the kubelet has started another and it serves. */
  const restartStaticPod = async (component: 'kube-apiserver' | 'etcd'): Promise<void> => {
    const running = (): Promise<string> => inNode(['crictl', 'ps', '--state', 'running', '--name', `^${component}$`, '--quiet']);
    const before = (await running()).split('\n')[0];
    if (!before) throw new Error(`no running ${component} container in ${up.node}`);
    await inNode(['crictl', 'stop', '--timeout', '10', before]);
    const deadline = Date.now() + CONTROL_PLANE_BACK_MS;
    while (Date.now() < deadline) {
      const now = (await running().catch(() => '')).split('\n')[0];
      if (now && now !== before && (await kubectl(['get', '--raw', '/readyz'])).code === 0) return;
      await delay(1_000);
    }
    throw new Error(`${component} did not serve again within ${String(CONTROL_PLANE_BACK_MS / 1000)} s of its restart`);
  };
  const hostPids = new Map<string, number>();
  return {
    kind: 'kind',
    kubeconfig: up.kubeconfig,
    api,
    kubectl,
    kubectlOk: succeeding(kubectl),
    servicesHost: up.gateway,
    installDir: (operator) => join(up.overlays, operator),
    restartApiServer: () => restartStaticPod('kube-apiserver'),
    restartEtcd: () => restartStaticPod('etcd'),
    killContainer: async (containerID) => {
      const pid = await inNode(['crictl', 'inspect', '--output', 'go-template', '--template', '{{.info.pid}}', containerIdOf(containerID)]);
      if (!/^\d+$/.test(pid) || pid === '0') throw new Error(`container ${containerID} has no running process to kill`);
      await inNode(['kill', '-KILL', pid]);
    },
    containerPid: async (containerID) => {
      const id = containerIdOf(containerID);
      const known = hostPids.get(id);
      // A PID is reused only after its process ended; the cgroup says whether it is still this container's.
      if (known !== undefined && (await readFile(`/proc/${String(known)}/cgroup`, 'utf8').catch(() => '')).includes(id)) return known;
      const found = await hostPidOfContainer(id);
      if (found === undefined) hostPids.delete(id);
      else hostPids.set(id, found);
      return found;
    },
    close: async () => {
      await soakClusterScript('down', say);
    },
  };
}
