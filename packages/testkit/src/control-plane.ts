import { request } from 'node:https';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AUDIT_POLICY_FILE, parseAuditLog, type AuditedRequest } from './audit-log.ts';
import { findBinaries, type BinaryPaths } from './binaries.ts';
import { freePorts } from './free-port.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { ManagedProcess } from './managed-process.ts';
import { createClientCertificate, createClusterPki, type ClientCertificate, type ClusterPki } from './pki.ts';

export interface ControlPlaneOptions {
  /** A fresh directory for this cluster's data, certificates, kubeconfigs and logs. */
  dir: string;
  binaries?: BinaryPaths;
  /** How long to wait for the API server and controllers (default 60 s; typically ready in a few seconds). */
  startTimeoutMs?: number;
}

/** The service CIDR; no kube-proxy runs, so ClusterIPs are allocated but not routed (clients use EndpointSlices). */
export const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/**
 * etcd + kube-apiserver (RBAC, PodSecurity admission, service-account token signing, TLS with a fresh CA) +
 * kube-controller-manager (deployments, replicasets, garbage collector, endpointslices, namespaces, service
 * accounts, tokens, jobs, PV binding, ...), all on random loopback ports.
 */
export class ControlPlane {
  readonly dir: string;
  readonly binaries: BinaryPaths;
  readonly pki: ClusterPki;
  readonly url: string;
  readonly etcdUrl: string;
  /** kubeconfig of a `system:masters` user. */
  readonly adminKubeconfig: string;
  readonly logDir: string;
  readonly #admin: ClientCertificate;
  readonly #apiServerArgs: string[];
  readonly #startTimeoutMs: number;
  readonly #etcdArgs: string[];
  #etcd: ManagedProcess | undefined;
  #apiServer: ManagedProcess | undefined;
  #controllerManager: ManagedProcess | undefined;

  private constructor(init: { dir: string; binaries: BinaryPaths; pki: ClusterPki; url: string; etcdUrl: string; adminKubeconfig: string; admin: ClientCertificate; apiServerArgs: string[]; etcdArgs: string[]; startTimeoutMs: number }) {
    this.dir = init.dir;
    this.binaries = init.binaries;
    this.pki = init.pki;
    this.url = init.url;
    this.etcdUrl = init.etcdUrl;
    this.adminKubeconfig = init.adminKubeconfig;
    this.logDir = join(init.dir, 'logs');
    this.#admin = init.admin;
    this.#apiServerArgs = init.apiServerArgs;
    this.#etcdArgs = init.etcdArgs;
    this.#startTimeoutMs = init.startTimeoutMs;
  }

  static async start(options: ControlPlaneOptions): Promise<ControlPlane> {
    const binaries = options.binaries ?? (await findBinaries());
    const pkiDir = join(options.dir, 'pki');
    await mkdir(pkiDir, { recursive: true });
    await mkdir(join(options.dir, 'logs'), { recursive: true });
    const pki = await createClusterPki(pkiDir);
    const admin = await createClientCertificate(pkiDir, pki, 'admin', 'testkit-admin', ['system:masters']);
    const [etcdPort, etcdPeerPort, apiPort] = await freePorts(3);
    const url = `https://127.0.0.1:${apiPort}`;
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const adminKubeconfig = await writeKubeconfig(join(options.dir, 'admin.kubeconfig'), {
      server: url, caPem: pki.caPem, user: 'testkit-admin', credentials: { kind: 'certificate', certFile: admin.cert, keyFile: admin.key },
    });
    // Requests of ServiceAccounts (the operators) are audited, so tests can compare RBAC with what code really calls.
    const apiServerArgs = [
      `--audit-policy-file=${AUDIT_POLICY_FILE}`,
      `--audit-log-path=${join(options.dir, 'logs', 'audit.log')}`,
      '--audit-log-format=json',
      `--etcd-servers=${etcdUrl}`,
      `--secure-port=${apiPort}`, '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1',
      // The `kubernetes` Service cannot point at a loopback address; nothing here routes to it anyway.
      '--endpoint-reconciler-type=none',
      `--cert-dir=${join(options.dir, 'apiserver-certs')}`,
      `--tls-cert-file=${pki.serverCert}`, `--tls-private-key-file=${pki.serverKey}`,
      `--client-ca-file=${pki.caCert}`,
      `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
      `--api-audiences=${SERVICE_ACCOUNT_ISSUER}`,
      `--service-account-key-file=${pki.serviceAccountPublicKey}`,
      `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      '--authorization-mode=RBAC',
      '--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,PodSecurity,DefaultStorageClass,StorageObjectInUseProtection,ResourceQuota,LimitRanger',
      // As on kind: privileged Pods are possible, so Pod Security admission is what keeps them out.
      '--allow-privileged=true',
      // Reach the local node's log server by address; its name resolves nowhere.
      '--kubelet-preferred-address-types=InternalIP',
      '--event-ttl=1h',
    ];
    const etcdArgs = [
      `--data-dir=${join(options.dir, 'etcd')}`, '--name=testkit',
      `--listen-client-urls=${etcdUrl}`, `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`, `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-cluster=testkit=http://127.0.0.1:${etcdPeerPort}`,
      // Test data is thrown away; fsync only costs time.
      '--unsafe-no-fsync',
    ];
    const plane = new ControlPlane({ dir: options.dir, binaries, pki, url, etcdUrl, adminKubeconfig, admin, apiServerArgs, etcdArgs, startTimeoutMs: options.startTimeoutMs ?? 60_000 });
    try {
      await plane.#startEtcd();
      await plane.#startApiServer();
      const kcm = await createClientCertificate(pkiDir, pki, 'controller-manager', 'system:kube-controller-manager', ['system:masters']);
      const kcmKubeconfig = await writeKubeconfig(join(options.dir, 'controller-manager.kubeconfig'), {
        server: url, caPem: pki.caPem, user: 'system:kube-controller-manager', credentials: { kind: 'certificate', certFile: kcm.cert, keyFile: kcm.key },
      });
      plane.#controllerManager = ManagedProcess.start({
        name: 'kube-controller-manager', command: binaries['kube-controller-manager'], logFile: join(plane.logDir, 'kube-controller-manager.log'),
        args: [
          `--kubeconfig=${kcmKubeconfig}`,
          '--secure-port=0', '--leader-elect=false',
          '--controllers=*',
          `--service-account-private-key-file=${pki.serviceAccountKey}`,
          `--root-ca-file=${pki.caCert}`,
          `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
          // React quickly: tests wait on what these controllers do.
          '--endpointslice-updates-batch-period=0s',
          '--node-monitor-grace-period=60s',
        ],
      });
      // The default ServiceAccount appears once the serviceaccount controller runs: the cluster is usable.
      await plane.#waitFor('kube-controller-manager', plane.#controllerManager, async () =>
        (await plane.adminGet('/api/v1/namespaces/default/serviceaccounts/default')).status === 200);
      return plane;
    } catch (error) {
      await plane.stop();
      throw error;
    }
  }

  async #startEtcd(): Promise<void> {
    this.#etcd = ManagedProcess.start({ name: 'etcd', command: this.binaries.etcd, logFile: join(this.logDir, 'etcd.log'), args: this.#etcdArgs });
    await this.#waitFor('etcd', this.#etcd, () => httpOk(`${this.etcdUrl}/health`));
  }

  /**
   * Stops etcd (SIGTERM) and starts it again on the same data and ports: the API server's requests fail until it is
   * back, as on a control plane whose etcd restarts. No data is lost (a clean stop flushes, even without fsync).
   */
  async restartEtcd(): Promise<void> {
    await this.stopEtcd();
    await this.#startEtcd();
  }

  /**
   * Stops etcd alone until {@link startEtcd}: the API server still accepts requests and holds each one that needs
   * etcd until its own timeout, as a control plane whose etcd lost quorum does.
   */
  async stopEtcd(): Promise<void> {
    await this.#etcd?.stop(10_000);
  }

  async startEtcd(): Promise<void> {
    if (this.#etcd?.running) return;
    await this.#startEtcd();
  }

  async #startApiServer(): Promise<void> {
    this.#apiServer = ManagedProcess.start({
      name: 'kube-apiserver', command: this.binaries['kube-apiserver'], args: this.#apiServerArgs,
      logFile: join(this.logDir, 'kube-apiserver.log'),
    });
    await this.#waitFor('kube-apiserver', this.#apiServer, async () => (await this.adminGet('/readyz')).status === 200);
  }

  /** Stops and starts kube-apiserver on the same etcd and port: every watch is cut, no data is lost. */
  async restartApiServer(): Promise<void> {
    await this.stopApiServer();
    await this.#startApiServer();
  }

  /** Stops kube-apiserver alone (clients see connection errors) until {@link startApiServer}. */
  async stopApiServer(): Promise<void> {
    await this.#apiServer?.stop(5_000);
  }

  async startApiServer(): Promise<void> {
    if (this.#apiServer?.running) return;
    await this.#startApiServer();
  }

  /** PIDs of the control plane's processes, so benchmarks can read their CPU time from /proc. A restarted API server has a new one. */
  processIds(): { etcd?: number; apiServer?: number; controllerManager?: number } {
    return { etcd: this.#etcd?.pid, apiServer: this.#apiServer?.pid, controllerManager: this.#controllerManager?.pid };
  }

  /** Compacts etcd at its current revision, so watches from older resourceVersions get 410 Gone. */
  async compactEtcd(): Promise<number> {
    const status = await jsonPost(`${this.etcdUrl}/v3/kv/range`, { key: Buffer.from('\0').toString('base64'), limit: 1 });
    const revision = Number((status as { header: { revision: string } }).header.revision);
    await jsonPost(`${this.etcdUrl}/v3/kv/compaction`, { revision: String(revision), physical: true });
    return revision;
  }

  /** Requests ServiceAccounts made so far (the audit log), optionally of one user only. */
  async auditedRequests(user?: string): Promise<AuditedRequest[]> {
    const text = await readFile(join(this.logDir, 'audit.log'), 'utf8').catch(() => '');
    return parseAuditLog(text, user);
  }

  /** A GET as the admin user, for readiness checks and tests that need the raw API. */
  adminGet(path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve) => {
      void (async () => {
        const [cert, key] = await Promise.all([readFile(this.#admin.cert), readFile(this.#admin.key)]);
        const req = request(`${this.url}${path}`, { ca: this.pki.caPem, cert, key, timeout: 5_000 }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => { body += chunk; });
          res.on('end', () => { resolve({ status: res.statusCode ?? 0, body }); });
        });
        req.on('error', () => { resolve({ status: 0, body: '' }); });
        req.on('timeout', () => { req.destroy(); });
        req.end();
      })();
    });
  }

  async #waitFor(what: string, process: ManagedProcess, ready: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + this.#startTimeoutMs;
    while (Date.now() < deadline) {
      if (!process.running) {
        throw new Error(`${what} exited during start-up (${JSON.stringify(process.exitStatus)}); see ${process.logFile}`);
      }
      if (await ready()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${what} was not ready within ${this.#startTimeoutMs} ms; see ${process.logFile}`);
  }

  /** Stops everything (controller manager, API server, etcd), each with a bounded SIGTERM → SIGKILL. */
  /**
   * Stops the three processes and deletes etcd's data (64 MiB of preallocated WAL at the least, which every test file's
   * cluster left behind). The logs, the PKI and the kubeconfigs stay in `dir` for a failed test's diagnosis.
   */
  async stop(): Promise<void> {
    await this.#controllerManager?.stop(5_000);
    await this.#apiServer?.stop(5_000);
    await this.#etcd?.stop(5_000);
    await rm(join(this.dir, 'etcd'), { recursive: true, force: true });
  }
}

function httpOk(url: string): Promise<boolean> {
  return fetch(url).then((r) => r.ok, () => false);
}

async function jsonPost(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (!response.ok) throw new Error(`etcd ${url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}
