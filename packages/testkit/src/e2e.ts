import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TestCluster, type KubectlResult } from './cluster.ts';
import { readAuditLogDir, type AuditedRequest } from './audit-log.ts';
import { operatorInstaller, type OperatorInstaller } from './e2e-install.ts';
import { engineAvailable, projectImageMode } from './node/runners/index.ts';
import { waitFor } from './wait-for.ts';

/** The repository root, where `deploy/<operator>` lives. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What an e2e spec may use: a kubeconfig and kubectl, plus a way to send HTTP to a Pod address. The same spec runs
 * against testkit's local cluster (`npm test`) and against kind (`E2E_KUBECONFIG` set by kind/e2e.sh), where Pod
 * addresses are reached directly when kind/e2e.sh routed the Pod subnet, else from a throwaway curl Pod in the cluster.
 */
export interface E2eCluster {
  kind: 'local' | 'external';
  kubeconfig: string;
  kubectl(args: readonly string[], options?: { input?: string }): Promise<KubectlResult>;
  /** `kubectl ...` that must succeed; throws with kubectl's output otherwise. */
  kubectlOk(args: readonly string[], options?: { input?: string }): Promise<string>;
  httpGet(address: string, port: number, path: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  /** What `curl ARGS` prints, run in a throwaway Pod inside the cluster; fails with curl's output when curl fails. */
  curlInCluster(args: readonly string[]): Promise<string>;
  /**
   * Whether this machine reaches Pod addresses directly: always on the local cluster; on kind when kind/e2e.sh routed
   * the Pod subnet to the node (E2E_POD_NETWORK_ROUTED=1). A Prometheus started here can only scrape Pods then.
   */
  podNetworkFromHost: boolean;
  /**
   * Requests a user made, from the API server's audit log: the local cluster's, or on kind the directory its API
   * server writes to (E2E_AUDIT_LOG_DIR, set by kind/e2e.sh where the cluster is built here), which holds every request
   * since the cluster was made (kind/e2e.sh runs every spec of a run on one new cluster). Undefined where there is no
   * audit log to read (a kind cluster made from kindest/node).
   */
  auditedRequests: ((user: string) => Promise<AuditedRequest[]>) | undefined;
  /**
   * Installs, removes and lists an operator the way E2E_INSTALL says: `kubectl apply -k` of `deploy/<operator>` or the
   * overlay kind/e2e.sh made (the default), a release's `install.yaml`, or its Helm chart.
   */
  installer: OperatorInstaller;
  /**
   * How the project's images run here, as the scheme of a Pod's `containerID`: `docker` (the local node, through the
   * container engine), `containerd` (kind), or `testkit` (the local node's processes: TESTKIT_IMAGES=process, or no
   * engine answers).
   */
  imageRuntime: string;
  /** The `containerID` schemes of the Pods a selector matches, to check they run as `imageRuntime` says. */
  containerRuntimes(namespace: string, selector: string): Promise<string[]>;
  /**
   * Creates the namespace a spec works in, after deleting what an earlier run on the same cluster left in it (kind
   * outlives a run). `close()` deletes it again on such a cluster, while the operator still runs to finalize its objects.
   */
  freshNamespace(name: string): Promise<void>;
  close(): Promise<void>;
}

const CURL_IMAGE = 'curlimages/curl:8.11.1';

export async function openE2eCluster(env: NodeJS.ProcessEnv = process.env): Promise<E2eCluster> {
  const external = env.E2E_KUBECONFIG;
  let local: TestCluster | undefined;
  let kubectl: E2eCluster['kubectl'];
  let kubeconfig: string;
  if (external) {
    kubeconfig = external;
    kubectl = (args, options = {}) => new Promise((resolve) => {
      const child = execFile('kubectl', args, { env: { ...env, KUBECONFIG: external }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      });
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
  } else {
    const cluster = await TestCluster.start();
    local = cluster;
    kubeconfig = cluster.adminKubeconfig;
    kubectl = (args, options) => cluster.kubectl(args, options);
  }
  const kubectlOk = async (args: readonly string[], options?: { input?: string }): Promise<string> => {
    const result = await kubectl(args, options);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}):\n${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  const podNetworkFromHost = local !== undefined || env.E2E_POD_NETWORK_ROUTED === '1';
  let curlRuns = 0;
  const curlInCluster = async (curlArgs: readonly string[]): Promise<string> => {
    const name = `e2e-curl-${process.pid}-${curlRuns++}`;
    // Not `kubectl run -i --rm`: when curl exits before kubectl attaches, kubectl falls back to the Pod's logs and can
    // print the output twice. The Pod runs to completion; its log is curl's output.
    await kubectlOk(['run', name, '--restart=Never', `--image=${CURL_IMAGE}`, '--', 'curl', ...curlArgs]);
    try {
      const phase = await waitFor(async () => {
        const current = await kubectlOk(['get', 'pod', name, '-o', 'jsonpath={.status.phase}']);
        return current === 'Succeeded' || current === 'Failed' ? current : undefined;
      }, { what: `the curl Pod ${name} to finish` });
      const output = await kubectlOk(['logs', name]);
      if (phase === 'Failed') throw new Error(`curl ${curlArgs.join(' ')} failed in Pod ${name}:\n${output}`);
      return output;
    } finally {
      await kubectl(['delete', 'pod', name, '--wait=false']);
    }
  };
  const httpGet = async (address: string, port: number, path: string, headers: Record<string, string> = {}): Promise<HttpAnswer> => {
    if (podNetworkFromHost) {
      const response = await fetch(`http://${address}:${port}${path}`, { headers, signal: AbortSignal.timeout(5_000) });
      return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
    }
    const raw = (await curlInCluster(['-s', '-i', '--max-time', '5', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
      `http://${address}:${port}${path}`])).replace(/\r\n/g, '\n');
    const [head = '', ...rest] = raw.split('\n\n');
    const [statusLine = '', ...headerLines] = head.split('\n');
    return {
      status: Number(statusLine.split(' ')[1]),
      headers: Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()])),
      body: rest.join('\n\n'),
    };
  };
  // A wrong E2E_INSTALL stops the local cluster it would otherwise leave running.
  const installer = await operatorInstaller(env, kubectlOk, kubeconfig, REPOSITORY_ROOT).catch(async (error: unknown) => {
    await local?.stop();
    throw error;
  });
  const mode = projectImageMode(env);
  const imageRuntime = external ? 'containerd' : mode === 'engine' || (mode === 'auto' && (await engineAvailable())) ? 'docker' : 'testkit';
  const containerRuntimes = async (namespace: string, selector: string): Promise<string[]> => {
    const ids = await kubectlOk(['-n', namespace, 'get', 'pods', '-l', selector, '-o', 'jsonpath={.items[*].status.containerStatuses[*].containerID}']);
    return [...new Set(ids.split(' ').filter(Boolean).map((id) => id.slice(0, id.indexOf('://'))))];
  };
  const specNamespaces: string[] = [];
  const deleteNamespace = async (name: string): Promise<void> => {
    const deleted = await kubectl(['delete', 'namespace', name, '--ignore-not-found', '--wait=true', '--timeout=180s']);
    if (deleted.code !== 0) {
      throw new Error(`namespace ${name} is still being deleted after 3 min (${deleted.stderr.trim()}); look at what holds it `
        + `(kubectl get all -n ${name}; objects with finalizers), or start from a new cluster (npm run kind -- delete)`);
    }
  };
  const freshNamespace = async (name: string): Promise<void> => {
    if (!local) await deleteNamespace(name);
    await kubectlOk(['create', 'namespace', name]);
    specNamespaces.push(name);
  };
  const plane = local?.controlPlane;
  const auditLogDir = external ? env.E2E_AUDIT_LOG_DIR : undefined;
  const auditedRequests = plane ? (user: string): Promise<AuditedRequest[]> => plane.auditedRequests(user)
    : auditLogDir ? (user: string): Promise<AuditedRequest[]> => readAuditLogDir(auditLogDir, user)
      : undefined;
  return {
    kind: local ? 'local' : 'external', kubeconfig, kubectl, kubectlOk, httpGet, curlInCluster, installer, imageRuntime, containerRuntimes,
    auditedRequests, podNetworkFromHost,
    freshNamespace,
    close: async () => {
      if (local) {
        await local.stop();
        return;
      }
      for (const name of specNamespaces.splice(0)) await deleteNamespace(name);
    },
  };
}
