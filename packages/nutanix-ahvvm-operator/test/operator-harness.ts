// The AhvVm controller run in-process against a real API server (testkit's control plane, no node needed) and the
// Prism simulator: for the controller's integration tests and the benchmark.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, Manager, Resources, createLogger, crdManifest, defineResource, type Controller, type Plain } from '@k8s-operators/controller-core';
import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import type { V1ClusterRole, V1ClusterRoleBinding, V1PolicyRule } from '@kubernetes/client-node';
import { ControlPlane, waitFor } from '@k8s-operators/testkit';
import { parse, stringify } from 'yaml';
import { AhvVmRef } from '../src/api/ahvvm-ref.ts';
import { AhvVmResource, type AhvVm, type AhvVmSpec } from '../src/api/ahvvm-resource.ts';
import { CRD_FILES } from '../src/api/crd-files.ts';
import { setupAhvVmController } from '../src/controller/ahvvm-controller.ts';
import type { ReconcileIntervals } from '../src/controller/requeue-timing.ts';
import type { PrismAccessGate } from '../src/controller/prism-access-gate.ts';
import { connectToPrism, type PrismConnection } from '../src/controller/prism-connection.ts';
import { registerAhvVmMetrics, type AhvVmMetrics } from '../src/metrics/ahvvm-metrics.ts';

/** The `prism-central` Secret's keys for a simulator, trusting its CA; `overrides` replace or (undefined) drop keys. */
export function prismEnvFor(simulator: PrismSimulator, overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const url = new URL(simulator.url);
  return {
    PRISM_HOST: url.hostname,
    PRISM_PORT: url.port,
    PRISM_USER: simulator.username,
    PRISM_PASS: simulator.password,
    PRISM_CLUSTERUUID: simulator.clusters[0]?.uuid,
    PRISM_CA_CERT: simulator.caCertPem,
    ...overrides,
  };
}

export interface OperatorOptions {
  /** The environment the operator would get from the Secret. */
  env: Record<string, string | undefined>;
  /** Watch only this namespace, so operators of different tests never see each other's AhvVms. */
  namespace: string;
  intervals?: Partial<ReconcileIntervals>;
  maxConcurrentReconciles?: number;
  prismMaxConcurrentRequests?: number;
  gate?: PrismAccessGate;
  /** Default silent; `info` to see what the controller does. */
  logLevel?: 'silent' | 'debug' | 'info' | 'warn';
  /** Where the log lines go (default stdout), e.g. to look for what must never be logged. */
  logTo?: { write(line: string): void };
  /** Default: the admin's; `kubeconfigWithManagerRole()` to run with no more than the installed operator may do. */
  kubeconfig?: string;
}

const ClusterRole = defineResource<Plain<V1ClusterRole>>({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false });
const ClusterRoleBinding = defineResource<Plain<V1ClusterRoleBinding>>({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false });
/** The ServiceAccount `kubectl apply -k deploy/nutanix-ahvvm-operator` runs the operator as. */
const OPERATOR_ACCOUNT = { namespace: 'nutanix-ahvvm-operator-system', name: 'nutanix-ahvvm-operator-controller-manager' };

export interface RunningOperator {
  manager: Manager;
  metrics: AhvVmMetrics;
  prism: PrismConnection;
  controller: Controller;
  /** Stops the manager gracefully (reconciles in flight finish) and closes the Prism client. */
  stop(): Promise<void>;
}

export class OperatorTestEnvironment {
  readonly controlPlane: ControlPlane;
  readonly kube: KubeClient;
  readonly #dir: string;

  private constructor(dir: string, controlPlane: ControlPlane, kube: KubeClient) {
    this.#dir = dir;
    this.controlPlane = controlPlane;
    this.kube = kube;
  }

  /** A control plane with the AhvVm CRD installed and served. */
  static async start(): Promise<OperatorTestEnvironment> {
    const dir = await mkdtemp(join(tmpdir(), 'ahvvm-operator-'));
    const controlPlane = await ControlPlane.start({ dir });
    const kube = await KubeClient.load({ kubeconfig: controlPlane.adminKubeconfig });
    const environment = new OperatorTestEnvironment(dir, controlPlane, kube);
    await environment.installCrd();
    return environment;
  }

  /** Installs the AhvVm CRD (again, after a test deleted it) and waits until AhvVms are served. */
  async installCrd(): Promise<void> {
    await this.kube.apply(Resources.CustomResourceDefinition, crdManifest(AhvVmResource), { fieldManager: 'ahvvm-test' });
    await waitFor(async () => (await this.kube.list(AhvVmRef, { pageSize: 1 })).items, { what: 'the ahvvms endpoint to be served', timeoutMs: 30_000 });
  }

  /**
   * A kubeconfig that acts as the installed operator's ServiceAccount (the admin impersonates it), bound to
   * deploy/nutanix-ahvvm-operator/rbac/role.yaml's ClusterRole as the install binds it: an operator run with it does
   * only what that role allows, so a test shows the role is enough for what it exercises.
   */
  async kubeconfigWithManagerRole(): Promise<string> {
    const role = parse(await readFile(join(CRD_FILES.directory, '../rbac/role.yaml'), 'utf8')) as { rules: V1PolicyRule[] };
    const name = 'nutanix-ahvvm-operator-manager-role';
    await this.kube.apply(ClusterRole, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: role.rules }, { fieldManager: 'ahvvm-test' });
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [{ kind: 'ServiceAccount', ...OPERATOR_ACCOUNT }] };
    await this.kube.apply(ClusterRoleBinding, binding, { fieldManager: 'ahvvm-test' });
    const config = parse(await readFile(this.controlPlane.adminKubeconfig, 'utf8')) as { users: { user: Record<string, unknown> }[] };
    for (const entry of config.users) entry.user.as = `system:serviceaccount:${OPERATOR_ACCOUNT.namespace}:${OPERATOR_ACCOUNT.name}`;
    const path = join(this.#dir, 'operator.kubeconfig');
    await writeFile(path, stringify(config), { mode: 0o600 });
    return path;
  }

  async createNamespace(name: string): Promise<void> {
    await this.kube.create(Resources.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  async runOperator(options: OperatorOptions): Promise<RunningOperator> {
    const manager = await Manager.create({
      name: 'nutanix-ahvvm-operator',
      kubeconfig: options.kubeconfig ?? this.controlPlane.adminKubeconfig,
      namespace: options.namespace,
      leaderElection: { enabled: false },
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: createLogger({ level: options.logLevel ?? 'silent', name: 'ahvvm-test', ...(options.logTo === undefined ? {} : { destination: options.logTo }) }),
    });
    const metrics = registerAhvVmMetrics(manager.metrics.registry);
    const prism = connectToPrism(options.env, { metrics, maxConcurrentRequests: options.prismMaxConcurrentRequests ?? 8 });
    const controller = setupAhvVmController(manager, {
      prism,
      metrics,
      maxConcurrentReconciles: options.maxConcurrentReconciles ?? 10,
      ...(options.intervals === undefined ? {} : { intervals: options.intervals }),
      ...(options.gate === undefined ? {} : { gate: options.gate }),
    });
    const running = manager.start();
    running.catch(() => undefined);
    return {
      manager,
      metrics,
      prism,
      controller,
      stop: async () => {
        manager.stop();
        await running;
        if (prism.configured) await prism.close();
      },
    };
  }

  async apply(namespace: string, name: string, spec: AhvVmSpec): Promise<AhvVm> {
    return this.kube.apply(AhvVmRef, { apiVersion: 'nutanix.com/v1alpha1', kind: 'AhvVm', metadata: { name, namespace }, spec }, { fieldManager: 'ahvvm-test', force: true });
  }

  get(namespace: string, name: string): Promise<AhvVm | undefined> {
    return this.kube.get(AhvVmRef, { namespace, name });
  }

  /** Waits until condition `type` has `status` (and `reason`, when given) for the resource's current generation. */
  async waitForCondition(namespace: string, name: string, type: string, status: 'True' | 'False', reason?: string, timeoutMs = 30_000): Promise<AhvVm> {
    return waitFor(async () => {
      const avm = await this.get(namespace, name);
      const condition = avm?.status?.conditions?.find((c) => c.type === type);
      const current = avm?.status?.observedGeneration === avm?.metadata.generation;
      return current && condition?.status === status && (reason === undefined || condition.reason === reason) ? avm : undefined;
    }, { what: `${namespace}/${name} ${type}=${status}${reason === undefined ? '' : ` (${reason})`}`, timeoutMs, intervalMs: 50 });
  }

  /** Reasons of the Events about the AhvVm `name`, oldest first. */
  async eventReasons(namespace: string, name: string): Promise<string[]> {
    const events = await this.kube.list(Resources.Event, { namespace });
    return events.items.filter((e) => e.regarding?.name === name && e.regarding.kind === 'AhvVm').map((e) => e.reason ?? '');
  }

  async stop(): Promise<void> {
    await this.kube.close();
    await this.controlPlane.stop();
    await rm(this.#dir, { recursive: true, force: true });
  }
}
