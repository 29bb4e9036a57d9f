// The AhvVm controller run in-process against a real API server (testkit's control plane, no node needed) and the
// Prism simulator: for the controller's integration tests and the benchmark.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, Manager, Resources, createLogger, crdManifest, type Controller } from '@k8s-operators/controller-core';
import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { ControlPlane, waitFor } from '@k8s-operators/testkit';
import { AhvVmRef } from '../src/api/ahvvm-ref.ts';
import { AhvVmResource, type AhvVm, type AhvVmSpec } from '../src/api/ahvvm-resource.ts';
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
}

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
    await kube.apply(Resources.CustomResourceDefinition, crdManifest(AhvVmResource), { fieldManager: 'ahvvm-test' });
    await waitFor(async () => (await kube.list(AhvVmRef, { pageSize: 1 })).items, { what: 'the ahvvms endpoint to be served', timeoutMs: 30_000 });
    return new OperatorTestEnvironment(dir, controlPlane, kube);
  }

  async createNamespace(name: string): Promise<void> {
    await this.kube.create(Resources.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  async runOperator(options: OperatorOptions): Promise<RunningOperator> {
    const manager = await Manager.create({
      name: 'nutanix-ahvvm-operator',
      kubeconfig: this.controlPlane.adminKubeconfig,
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
