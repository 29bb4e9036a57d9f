import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ControlPlane } from './control-plane.ts';
import { waitForCrdsEstablished } from './crd-established.ts';
import { KubeApi } from './kube-api.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { LocalNode } from './node/local-node.ts';

export interface TestClusterOptions {
  /** Where the cluster keeps its data (default: a fresh temporary directory, removed on stop). */
  dir?: string;
  /** Image map merged over the built-in rules (default: TESTKIT_IMAGE_MAP). */
  imageMapFile?: string;
  /** Start the local node that runs Pods (default true). */
  node?: boolean;
  /** The local node's first restart back-off (default 10 s, as the kubelet). */
  restartBackoffBaseMs?: number;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A whole local cluster: control plane plus the process-based node. */
export class TestCluster {
  readonly controlPlane: ControlPlane;
  readonly node: LocalNode | undefined;
  readonly dir: string;
  readonly #ownsDir: boolean;
  #admin: KubeApi | undefined;

  private constructor(controlPlane: ControlPlane, node: LocalNode | undefined, dir: string, ownsDir: boolean) {
    this.controlPlane = controlPlane;
    this.node = node;
    this.dir = dir;
    this.#ownsDir = ownsDir;
  }

  static async start(options: TestClusterOptions = {}): Promise<TestCluster> {
    const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'testkit-')));
    const controlPlane = await ControlPlane.start({ dir });
    let node: LocalNode | undefined;
    try {
      if (options.node ?? true) {
        node = await LocalNode.start({
          kubeconfig: controlPlane.adminKubeconfig, pki: controlPlane.pki, dir,
          ...(options.imageMapFile ? { imageMapFile: options.imageMapFile } : {}),
          ...(options.restartBackoffBaseMs !== undefined ? { restartBackoffBaseMs: options.restartBackoffBaseMs } : {}),
        });
      }
    } catch (error) {
      await controlPlane.stop();
      throw error;
    }
    return new TestCluster(controlPlane, node, dir, options.dir === undefined);
  }

  get adminKubeconfig(): string {
    return this.controlPlane.adminKubeconfig;
  }

  /** The directory holding the pinned kubectl (and the other control-plane binaries). */
  get binDir(): string {
    return dirname(this.controlPlane.binaries.kubectl);
  }

  /** Environment for child processes: KUBECONFIG and a PATH with the pinned kubectl first. */
  env(kubeconfig = this.adminKubeconfig): NodeJS.ProcessEnv {
    return { ...process.env, KUBECONFIG: kubeconfig, PATH: `${this.binDir}:${process.env.PATH ?? ''}` };
  }

  async admin(): Promise<KubeApi> {
    this.#admin ??= await KubeApi.fromKubeconfig(this.adminKubeconfig);
    return this.#admin;
  }

  /**
   * A kubeconfig that authenticates as a ServiceAccount (through a TokenRequest), so a test runs code with
   * exactly the RBAC the manifests under deploy/ grant.
   */
  async serviceAccountKubeconfig(namespace: string, name: string, expirationSeconds = 86_400): Promise<string> {
    const api = await this.admin();
    const response = await api.create<{ status: { token: string } }>(`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds },
    });
    return writeKubeconfig(join(this.dir, `sa-${namespace}-${name}.kubeconfig`), {
      server: this.controlPlane.url, caPem: this.controlPlane.pki.caPem, user: `system:serviceaccount:${namespace}:${name}`,
      credentials: { kind: 'token', token: response.status.token }, namespace,
    });
  }

  /** Runs the pinned kubectl; never throws on a non-zero exit (tests assert on the result). */
  kubectl(args: readonly string[], options: { kubeconfig?: string; input?: string } = {}): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile(this.controlPlane.binaries.kubectl, args, { env: this.env(options.kubeconfig), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      });
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
  }

  /** Waits until each named CRD is Established (crd-established.ts says why not `kubectl wait`). */
  async waitForCrdsEstablished(crds: readonly string[]): Promise<void> {
    await waitForCrdsEstablished(async (args) => {
      const result = await this.kubectl(args);
      if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${String(result.code)}): ${result.stderr}`);
      return result.stdout;
    }, crds);
  }

  async stop(): Promise<void> {
    await this.#admin?.close();
    await this.node?.stop();
    await this.controlPlane.stop();
    if (this.#ownsDir) await rm(this.dir, { recursive: true, force: true });
  }
}
