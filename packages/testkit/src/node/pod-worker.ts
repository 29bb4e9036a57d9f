import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Container, V1ContainerStatus, V1Pod, V1PodCondition, V1Probe } from '@kubernetes/client-node';
import type { KubeApi } from '../kube-api.ts';
import type { ManagedProcess } from '../managed-process.ts';
import { findImageRule, type ImageMap } from './image-map.ts';
import { containerLogFile } from './log-server.ts';
import type { PodIpAllocator } from './ip-allocator.ts';
import { ContainerConfigError, expandReferences, ObjectSource, resolveContainerEnv } from './pod-env.ts';
import { runProbe } from './probes.ts';
import { RunnerError, type ContainerRunner } from './runners/index.ts';
import { DEFAULT_TERMINATION_MESSAGE_PATH, emptyTerminationLog, readTerminationMessage } from './termination-message.ts';
import { containerMounts, preparePodVolumes, translateMountedPaths, VolumeNotReadyError } from './volumes.ts';

export interface NodeContext {
  api: KubeApi;
  nodeName: string;
  hostIP: string;
  dir: string;
  imageMap: ImageMap;
  runners: Readonly<Record<string, ContainerRunner>>;
  ips: PodIpAllocator;
  cluster: { server: string; caFile: string };
  workspaceRoot: string;
  /** First delay before restarting a crashed container; doubles up to 5 min like the kubelet's (default 10 s). */
  restartBackoffBaseMs: number;
}

type ContainerState =
  | { kind: 'waiting'; reason: string; message?: string }
  | { kind: 'running'; startedAt: string }
  | { kind: 'terminated'; exitCode: number; signal?: string; reason: string; startedAt: string; finishedAt: string; message?: string };

interface ContainerRuntime {
  spec: V1Container;
  init: boolean;
  state: ContainerState;
  lastState?: ContainerState;
  process?: ManagedProcess;
  probeEnv?: Record<string, string>;
  hostPaths?: string[];
  ids?: { containerID: string; imageID: string };
  env?: Record<string, string>;
  /** This machine's file behind the container's terminationMessagePath. */
  terminationLog?: string;
  restartCount: number;
  nextStartAt: number;
  ready: boolean;
  started: boolean;
  probes: Record<'startup' | 'liveness' | 'readiness', { successes: number; failures: number; nextAt: number }>;
}

const TICK_MS = 100;
const isoNow = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * Runs one Pod bound to the local node: volumes, env, containers as processes (init containers first),
 * probes driving readiness, restarts per restartPolicy with the kubelet's back-off, status reports, and a
 * graceful stop (SIGTERM, grace period, SIGKILL) when the Pod is deleted.
 */
export class PodWorker {
  readonly uid: string;
  #pod: V1Pod;
  readonly #node: NodeContext;
  readonly #podDir: string;
  readonly #logDir: string;
  #podIP: string | undefined;
  #volumeDirs: Map<string, string> | undefined;
  #setupProblem: { reason: string; message: string } | undefined;
  readonly #containers: ContainerRuntime[];
  #timer: NodeJS.Timeout | undefined;
  #busy = false;
  #lastReported = '';
  #terminating: Promise<void> | undefined;
  #stopped = false;

  constructor(node: NodeContext, pod: V1Pod) {
    this.#node = node;
    this.#pod = pod;
    this.uid = pod.metadata?.uid ?? '';
    this.#podDir = join(node.dir, 'pods', this.uid);
    this.#logDir = join(node.dir, 'logs', `${pod.metadata?.namespace ?? ''}_${pod.metadata?.name ?? ''}_${this.uid}`);
    const make = (spec: V1Container, init: boolean): ContainerRuntime => ({
      spec, init, state: { kind: 'waiting', reason: 'ContainerCreating' }, restartCount: 0, nextStartAt: 0, ready: false, started: false,
      probes: { startup: { successes: 0, failures: 0, nextAt: 0 }, liveness: { successes: 0, failures: 0, nextAt: 0 }, readiness: { successes: 0, failures: 0, nextAt: 0 } },
    });
    this.#containers = [...(pod.spec?.initContainers ?? []).map((c) => make(c, true)), ...(pod.spec?.containers ?? []).map((c) => make(c, false))];
  }

  get logDir(): string {
    return this.#logDir;
  }

  start(): void {
    const loop = (): void => {
      void this.#tick().finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(loop, TICK_MS);
      });
    };
    loop();
  }

  update(pod: V1Pod): void {
    this.#pod = pod;
  }

  /** Stops the containers within the Pod's grace period and removes the Pod object, as the kubelet does. */
  terminate(removeObject: boolean, graceMs?: number): Promise<void> {
    this.#terminating ??= (async () => {
      const graceSeconds = this.#pod.metadata?.deletionGracePeriodSeconds ?? this.#pod.spec?.terminationGracePeriodSeconds ?? 30;
      await Promise.all(this.#containers.flatMap((c) => (c.process ? [c.process.stop(graceMs ?? graceSeconds * 1000)] : [])));
      this.#stopped = true;
      clearTimeout(this.#timer);
      while (this.#busy) await new Promise((r) => setTimeout(r, 10));
      this.#node.ips.release(this.uid);
      const hostPaths = this.#containers.flatMap((c) => c.hostPaths ?? []);
      // A container killed at the end of its grace period may leave children that still write for a moment (a
      // PostgreSQL postmaster's checkpointer into pg_xact): rm then meets ENOTEMPTY, and tries again as rimraf does.
      // Should that still fail, the directory stays (the node's own directory goes with the cluster), as a kubelet leaves
      // an orphaned Pod directory and says so: the Pod is gone either way, and nothing awaits this to fail a test with.
      await Promise.all([this.#podDir, ...hostPaths].map((path) => rm(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }).catch((error: unknown) => {
        process.stderr.write(`testkit node: could not remove ${path} of terminated Pod ${this.#pod.metadata?.namespace ?? ''}/${this.#pod.metadata?.name ?? ''}, left in place: ${(error as Error).message}\n`);
      })));
      if (removeObject) {
        const meta = this.#pod.metadata ?? {};
        await this.#node.api.delete(`/api/v1/namespaces/${meta.namespace ?? ''}/pods/${meta.name ?? ''}`, { gracePeriodSeconds: 0, uid: this.uid }).catch(() => undefined);
      }
    })();
    return this.#terminating;
  }

  async #tick(): Promise<void> {
    if (this.#busy || this.#stopped) return;
    this.#busy = true;
    try {
      if (this.#pod.metadata?.deletionTimestamp) {
        void this.terminate(true);
        return;
      }
      if (!this.#volumeDirs) await this.#setUp();
      if (this.#volumeDirs) {
        const initPending = this.#containers.find((c) => c.init && !(c.state.kind === 'terminated' && c.state.exitCode === 0));
        if (initPending) await this.#drive(initPending);
        else await Promise.all(this.#containers.filter((c) => !c.init).map((c) => this.#drive(c)));
      }
      await this.#report();
    } catch (error) {
      this.#setupProblem = { reason: 'TestkitError', message: error instanceof Error ? error.message : String(error) };
    } finally {
      this.#busy = false;
    }
  }

  async #setUp(): Promise<void> {
    const source = new ObjectSource(this.#node.api, this.#pod.metadata?.namespace ?? 'default');
    this.#podIP ??= this.#node.ips.allocate(this.uid);
    await mkdir(this.#podDir, { recursive: true, mode: 0o755 });
    await mkdir(this.#logDir, { recursive: true });
    try {
      this.#volumeDirs = await preparePodVolumes(this.#pod, this.#podDir, this.#node.api, source);
      this.#setupProblem = undefined;
    } catch (error) {
      if (!(error instanceof VolumeNotReadyError || error instanceof ContainerConfigError)) throw error;
      this.#setupProblem = { reason: error instanceof VolumeNotReadyError ? 'ContainerCreating' : 'CreateContainerConfigError', message: error.message };
    }
  }

  #restartAllowed(c: ContainerRuntime, exitCode: number): boolean {
    if (c.init) return exitCode !== 0 && (this.#pod.spec?.restartPolicy ?? 'Always') !== 'Never';
    const policy = this.#pod.spec?.restartPolicy ?? 'Always';
    return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
  }

  async #drive(c: ContainerRuntime): Promise<void> {
    if (c.process && !c.process.running && c.state.kind === 'running') {
      const exit = c.process.exitStatus;
      const exitCode = exit?.code ?? (exit?.signal ? 137 : 1);
      const message = await readTerminationMessage(c.terminationLog);
      c.state = {
        kind: 'terminated', exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: c.state.startedAt, finishedAt: isoNow(),
        ...(exit?.signal ? { signal: exit.signal } : {}), ...(message === undefined ? {} : { message }),
      };
      c.ready = false;
      c.started = false;
      if (this.#restartAllowed(c, exitCode)) {
        const delay = c.restartCount === 0 ? 0 : Math.min(this.#node.restartBackoffBaseMs * 2 ** (c.restartCount - 1), 300_000);
        c.nextStartAt = Date.now() + delay;
      }
    }
    const waitingToRestart = c.state.kind === 'terminated' && this.#restartAllowed(c, c.state.exitCode);
    if ((c.state.kind === 'waiting' || waitingToRestart) && Date.now() >= c.nextStartAt) {
      await this.#startContainer(c);
      return;
    }
    if (waitingToRestart && c.restartCount > 0) c.lastState = c.state;
    if (c.state.kind === 'running' && !c.init) await this.#probe(c);
  }

  async #startContainer(c: ContainerRuntime): Promise<void> {
    const image = c.spec.image ?? '';
    const rule = findImageRule(this.#node.imageMap, image);
    if (!rule) {
      c.state = { kind: 'waiting', reason: 'ErrImagePull', message: `image "${image}" is not in the testkit image map: add a rule for it (--image-map or TESTKIT_IMAGE_MAP)` };
      return;
    }
    const runner = this.#node.runners[rule.runner];
    if (!runner) {
      c.state = { kind: 'waiting', reason: 'ErrImagePull', message: `image map rule "${rule.match}" names unknown runner "${rule.runner}"` };
      return;
    }
    const source = new ObjectSource(this.#node.api, this.#pod.metadata?.namespace ?? 'default');
    try {
      const containerDir = join(this.#podDir, 'containers', c.spec.name);
      await mkdir(containerDir, { recursive: true, mode: 0o755 });
      c.terminationLog = await emptyTerminationLog(containerDir);
      const mounts = [
        ...containerMounts(c.spec, this.#volumeDirs ?? new Map()),
        { mountPath: c.spec.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH, hostPath: c.terminationLog, readOnly: false },
      ];
      const rawEnv = await resolveContainerEnv(this.#pod, c.spec, source, this.#podIP ?? '', this.#node.hostIP);
      const env = Object.fromEntries(Object.entries(rawEnv).map(([k, v]) => [k, translateMountedPaths(v, mounts)]));
      // The image map decides the program (the image's ENTRYPOINT); the container's args are passed to it.
      const containerCommand = (c.spec.command ?? []).map((a) => expandReferences(a, rawEnv));
      const containerArgs = (c.spec.args ?? []).map((a) => expandReferences(a, rawEnv));
      const command = containerCommand.map((a) => translateMountedPaths(a, mounts));
      const args = containerArgs.map((a) => translateMountedPaths(a, mounts));
      const logFile = join(this.#logDir, containerLogFile(c.spec.name));
      // As the kubelet keeps the ended container's log for `kubectl logs --previous`, the new one starts a file of its own.
      if (c.state.kind === 'terminated') await rename(logFile, join(this.#logDir, containerLogFile(c.spec.name, 'previous'))).catch(() => undefined);
      const started = await runner({
        pod: this.#pod, container: c.spec, podIP: this.#podIP ?? '', env, containerEnv: rawEnv, command, args, containerCommand, containerArgs,
        mounts, containerDir, logFile, settings: rule.with ?? {},
        cluster: this.#node.cluster, workspaceRoot: this.#node.workspaceRoot,
      });
      if (c.state.kind === 'terminated') {
        c.lastState = c.state;
        c.restartCount++;
      }
      c.process = started.process;
      c.probeEnv = started.probeEnv;
      c.hostPaths = started.hostPaths;
      c.ids = { containerID: started.containerID ?? `testkit://${started.process.pid ?? ''}`, imageID: started.imageID ?? `testkit://${image}` };
      c.env = env;
      c.state = { kind: 'running', startedAt: isoNow() };
      c.started = !c.spec.startupProbe;
      c.ready = false;
      const now = Date.now();
      for (const [kind, probe] of Object.entries({ startup: c.spec.startupProbe, liveness: c.spec.livenessProbe, readiness: c.spec.readinessProbe })) {
        c.probes[kind as keyof ContainerRuntime['probes']] = { successes: 0, failures: 0, nextAt: now + (probe?.initialDelaySeconds ?? 0) * 1000 };
      }
    } catch (error) {
      const reason = error instanceof ContainerConfigError ? 'CreateContainerConfigError' : error instanceof RunnerError ? 'RunContainerError' : 'ContainerCannotRun';
      c.state = { kind: 'waiting', reason, message: error instanceof Error ? error.message : String(error) };
      c.nextStartAt = Date.now() + 1_000;
    }
  }

  async #probe(c: ContainerRuntime): Promise<void> {
    const now = Date.now();
    const mounts = containerMounts(c.spec, this.#volumeDirs ?? new Map());
    const target = { podIP: this.#podIP ?? '', container: c.spec, translate: (arg: string) => translateMountedPaths(arg, mounts), env: { ...process.env, ...c.env, ...c.probeEnv }, cwd: join(this.#podDir, 'containers', c.spec.name) };
    const due = (kind: keyof ContainerRuntime['probes'], probe: V1Probe | undefined): probe is V1Probe => probe !== undefined && now >= c.probes[kind].nextAt;
    const step = async (kind: keyof ContainerRuntime['probes'], probe: V1Probe): Promise<'success' | 'failure' | 'pending'> => {
      const counters = c.probes[kind];
      counters.nextAt = now + (probe.periodSeconds ?? 10) * 1000;
      const result = await runProbe(probe, target);
      if (result.ok) {
        counters.successes++;
        counters.failures = 0;
        return counters.successes >= (kind === 'readiness' ? probe.successThreshold ?? 1 : 1) ? 'success' : 'pending';
      }
      counters.failures++;
      counters.successes = 0;
      return counters.failures >= (probe.failureThreshold ?? 3) ? 'failure' : 'pending';
    };
    if (!c.started) {
      if (due('startup', c.spec.startupProbe)) {
        const outcome = await step('startup', c.spec.startupProbe);
        if (outcome === 'success') c.started = true;
        else if (outcome === 'failure') c.process?.killGroup('SIGKILL');
      }
      return;
    }
    const [liveness, readiness] = await Promise.all([
      due('liveness', c.spec.livenessProbe) ? step('liveness', c.spec.livenessProbe) : 'pending',
      due('readiness', c.spec.readinessProbe) ? step('readiness', c.spec.readinessProbe) : 'pending',
    ]);
    if (liveness === 'failure') {
      // The kubelet kills the container and restarts it per restartPolicy.
      void c.process?.stop((this.#pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000);
      return;
    }
    if (!c.spec.readinessProbe) c.ready = true;
    else if (readiness === 'success') c.ready = true;
    else if (readiness === 'failure') c.ready = false;
  }

  #containerStatus(c: ContainerRuntime): V1ContainerStatus {
    const state = (s: ContainerState): NonNullable<V1ContainerStatus['state']> => {
      if (s.kind === 'waiting') return { waiting: { reason: s.reason, ...(s.message ? { message: s.message } : {}) } };
      if (s.kind === 'running') return { running: { startedAt: s.startedAt as unknown as Date } };
      const message = s.message ?? (s.signal ? `killed by ${s.signal}` : undefined);
      return { terminated: { exitCode: s.exitCode, reason: s.reason, startedAt: s.startedAt as unknown as Date, finishedAt: s.finishedAt as unknown as Date, ...(message === undefined ? {} : { message }) } };
    };
    let current = c.state;
    if (current.kind === 'terminated' && this.#restartAllowed(c, current.exitCode) && c.restartCount > 0) {
      current = { kind: 'waiting', reason: 'CrashLoopBackOff', message: `back-off restarting failed container ${c.spec.name}` };
    } else if (current.kind === 'waiting' && current.reason === 'ContainerCreating' && this.#setupProblem) {
      current = { kind: 'waiting', reason: this.#setupProblem.reason, message: this.#setupProblem.message };
    }
    return {
      name: c.spec.name, image: c.spec.image ?? '', imageID: c.ids?.imageID ?? `testkit://${c.spec.image ?? ''}`,
      ...(c.ids ? { containerID: c.ids.containerID } : {}),
      ready: c.ready, started: c.state.kind === 'running' && c.started, restartCount: c.restartCount,
      state: state(current), ...(c.lastState ? { lastState: state(c.lastState) } : {}),
    };
  }

  async #report(): Promise<void> {
    const main = this.#containers.filter((c) => !c.init);
    const inits = this.#containers.filter((c) => c.init);
    const initialized = inits.every((c) => c.state.kind === 'terminated' && c.state.exitCode === 0);
    const containersReady = initialized && main.every((c) => c.ready);
    const gates = (this.#pod.spec?.readinessGates ?? []).map((g) => g.conditionType);
    const existing = this.#pod.status?.conditions ?? [];
    const gatesTrue = gates.every((t) => existing.some((c) => c.type === t && c.status === 'True'));
    const allTerminated = main.every((c) => c.state.kind === 'terminated' && !this.#restartAllowed(c, c.state.exitCode));
    const everStarted = main.every((c) => c.state.kind !== 'waiting' || c.restartCount > 0);
    let phase = 'Pending';
    if (initialized && allTerminated) phase = main.every((c) => c.state.kind === 'terminated' && c.state.exitCode === 0) ? 'Succeeded' : 'Failed';
    else if (initialized && everStarted) phase = 'Running';
    const ours: Record<string, boolean> = {
      PodReadyToStartContainers: this.#volumeDirs !== undefined, Initialized: initialized,
      ContainersReady: containersReady, Ready: containersReady && gatesTrue && phase === 'Running', PodScheduled: true,
    };
    const conditions: V1PodCondition[] = Object.entries(ours).map(([type, ok]) => {
      const previous = existing.find((c) => c.type === type);
      const status = ok ? 'True' : 'False';
      return { type, status, lastProbeTime: null as unknown as Date, lastTransitionTime: (previous?.status === status ? previous.lastTransitionTime : isoNow()) as unknown as Date,
        ...(type === 'ContainersReady' && !ok ? { reason: 'ContainersNotReady' } : {}) };
    });
    conditions.push(...existing.filter((c) => !(c.type in ours)));
    const status = {
      phase, hostIP: this.#node.hostIP, hostIPs: [{ ip: this.#node.hostIP }],
      ...(this.#podIP ? { podIP: this.#podIP, podIPs: [{ ip: this.#podIP }] } : {}),
      startTime: this.#pod.status?.startTime ?? isoNow(), conditions,
      initContainerStatuses: inits.map((c) => this.#containerStatus(c)), containerStatuses: main.map((c) => this.#containerStatus(c)),
      qosClass: this.#pod.status?.qosClass ?? 'BestEffort',
    };
    const fingerprint = JSON.stringify({ ...status, conditions: conditions.map((c) => [c.type, c.status]) });
    if (fingerprint === this.#lastReported) return;
    const meta = this.#pod.metadata ?? {};
    const updated = await this.#node.api.mergePatch<V1Pod>(`/api/v1/namespaces/${meta.namespace ?? ''}/pods/${meta.name ?? ''}/status`, { status });
    this.#pod = updated;
    this.#lastReported = fingerprint;
  }
}
