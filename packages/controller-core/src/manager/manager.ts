import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { KubeClient, type ApplyConfiguration } from '../client/kube-client.ts';
import type { RestClientMetricsSink } from '../client/rest-metrics.ts';
import { ControllerBuilder, type ControllerHost } from '../controller/builder.ts';
import type { Controller } from '../controller/controller.ts';
import type { ResourceRef } from '../client/resources.ts';
import { SharedInformerFactory } from '../informer/informer-factory.ts';
import type { InformerScope } from '../informer/reflector.ts';
import type { InformerMetricsSink, SharedInformer } from '../informer/shared-informer.ts';
import { LeaderElector, type LeaderElectionOptions } from '../leader/leader-elector.ts';
import { createLogger } from '../log.ts';
import { createMetrics, type ControllerCoreMetrics } from '../metrics/create-metrics.ts';
import { applyOwned, type ApplyOwnedOptions } from '../writes/apply-owned.ts';
import { EventRecorder } from '../writes/event-recorder.ts';
import { keyOf } from '../objects/object-key.ts';
import type { DesiredObject } from '../objects/owned-metadata.ts';
import { OwnWrites, type MergePatch } from '../writes/own-writes.ts';
import { StatusWriter } from '../writes/status-writer.ts';
import { parseBindAddress } from './bind-address.ts';
import { CacheReader } from './cache-reader.ts';
import { MetricsAuthorizer, type MetricsAuthOptions } from './metrics-auth.ts';
import { podName } from './pod-name.ts';
import { podNamespace } from './pod-namespace.ts';
import { ProbeServer, type Check } from './probe-server.ts';
import { selfSignedCertificate, type ServingCertificate } from './self-signed-certificate.ts';

export interface ManagerOptions {
  /** Names the field manager, the leader-election lease and log lines, e.g. `maintpage-operator`. */
  name: string;
  /**
   * A kubeconfig file, as controller-runtime's `--kubeconfig`. Default: the KUBECONFIG list, else the in-cluster
   * ServiceAccount, else ~/.kube/config.
   */
  kubeconfig?: string;
  /** Limit every informer to one namespace (default: all namespaces). */
  namespace?: string;
  /** The Lease defaults to `<name>-leader` in the Pod's namespace, the identity to `<podName>_<uuid>`. */
  leaderElection?: Partial<Omit<LeaderElectionOptions, 'masterStatus' | 'lostTotal' | 'logger'>> & {
    /** Default true. Turn off only for single-replica development. */
    enabled?: boolean;
  };
  /** `/healthz` and `/readyz` (default `:8081`; `0` disables; `:0` picks a free port). */
  healthProbeBindAddress?: string;
  /** `/metrics` and `/debug/queue` (default `:8443`; `0` disables; `:0` picks a free port). */
  metricsBindAddress?: string;
  /**
   * Default true, as kubebuilder's `--metrics-secure`: HTTPS, and every request needs a bearer token that a TokenReview
   * accepts and a SubjectAccessReview allows `get` on the path (controller-runtime's
   * `filters.WithAuthenticationAndAuthorization`). False: plain HTTP for anyone who can connect, and no `/debug/queue`.
   */
  metricsSecure?: boolean;
  /**
   * A directory with `tls.crt` and `tls.key` (e.g. a cert-manager Secret's mount) to serve metrics with, read at start;
   * default: a self-signed certificate made in memory at start.
   */
  metricsCertDir?: string;
  /**
   * The ClusterRole that grants `get` on `/metrics`, which a 403 answer tells the caller to bind (default
   * `<name>-metrics-reader`, as deploy/<operator>/rbac names it), and how long review answers are cached.
   */
  metricsAuth?: Partial<MetricsAuthOptions>;
  /** How long a stop waits for reconciles in flight before aborting them (default 30 s, as controller-runtime). */
  gracefulShutdownTimeoutMs?: number;
  /** Fail start-up when caches have not synced in this time (default 2 min, as controller-runtime). */
  cacheSyncTimeoutMs?: number;
  /**
   * Readiness fails when a watch has been silent this long; liveness fails at three times this, so a "healthy but
   * dead" operator is restarted by the kubelet (default 5 min).
   */
  watchStaleAfterMs?: number;
  logger?: Logger;
  registry?: Registry;
}

/**
 * Runs controllers: starts informers on every replica (so a successor has warm caches), waits for them to sync,
 * runs controllers only while leader, serves probes and metrics, and shuts down gracefully: stop taking work, finish
 * what is in flight (bounded), release the lease, stop watches.
 */
export class Manager implements ControllerHost {
  readonly name: string;
  readonly client: KubeClient;
  /** Which replica this is (POD_NAME, else the hostname): Events' reporting instance and the leader-election identity's prefix. */
  readonly podName: string;
  /** Reads from the manager's informers (see {@link CacheReader}); objects are frozen and shared. */
  readonly reader: CacheReader;
  readonly metrics: ControllerCoreMetrics;
  readonly logger: Logger;
  readonly namespace: string | undefined;
  readonly #options: ManagerOptions;
  readonly #informers: SharedInformerFactory;
  readonly #eventRecorders = new Map<string, EventRecorder>();
  readonly #statusWriters = new Map<string, StatusWriter>();
  /** What the status writers wrote and the caches do not show yet: the reader returns it. */
  readonly #ownWrites = new OwnWrites();
  /** Informers whose events end records of {@link #ownWrites}. */
  readonly #observedInformers = new WeakSet<SharedInformer<KubernetesObject>>();
  readonly #controllers: Controller[] = [];
  readonly #probes = new ProbeServer();
  #metricsServer: ProbeServer | undefined;
  readonly #stop = new AbortController();
  #informersStarted = false;
  #synced = false;
  #stopping = false;
  #ports: { health?: number; metrics?: number } = {};
  #elector: LeaderElector | undefined;

  private constructor(options: ManagerOptions, client: KubeClient, metrics: ControllerCoreMetrics, logger: Logger) {
    this.name = options.name;
    this.#options = options;
    this.client = client;
    this.metrics = metrics;
    this.logger = logger;
    this.namespace = options.namespace;
    this.podName = podName();
    const informerLogger = logger.child({ component: 'informer' });
    const informerMetrics: InformerMetricsSink = {
      onWatchRestart: (resource, reason) => { metrics.informers.watchRestarts.inc({ resource, reason }); },
      onRelist: (resource) => { metrics.informers.relists.inc({ resource }); },
      reportLastEvent: (resource, lastEventAt) => metrics.informers.reportLastEvent(resource, lastEventAt),
    };
    this.#informers = new SharedInformerFactory(client, { logger: informerLogger, metrics: informerMetrics, inactivityTimeoutMs: Math.min(180_000, options.watchStaleAfterMs ?? 300_000) });
    this.reader = new CacheReader({
      informerFor: (ref, scope) => this.informerFor(ref, scope),
      namespace: this.namespace,
      started: () => this.#informersStarted,
      syncTimeoutMs: options.cacheSyncTimeoutMs ?? 120_000,
      ownWrites: this.#ownWrites,
    });
  }

  static async create(options: ManagerOptions): Promise<Manager> {
    const logger = options.logger ?? createLogger({ name: options.name });
    const metrics = createMetrics(options.registry ?? new Registry());
    const clientOptions = { metrics: restMetricsSink(metrics), userAgent: options.name };
    const client = await KubeClient.load({ ...clientOptions, kubeconfig: options.kubeconfig });
    return new Manager(options, client, metrics, logger);
  }

  /**
   * The shared informer for `ref` in the manager's namespace: the very cache (and watch) its controllers' `for`,
   * `owns` and `watches` use, so a reconciler reads what its events came from. A label or field selector narrows it
   * into an informer of its own; the manager's namespace always applies. To read objects, {@link reader} is shorter.
   */
  informerFor<T extends KubernetesObject>(ref: ResourceRef<T>, scope: InformerScope = {}): SharedInformer<T> {
    const informer = this.#informers.informerFor(ref, { ...scope, ...(this.namespace === undefined || this.namespace === '' ? {} : { namespace: this.namespace }) });
    this.#endOwnWritesOnEvents(ref, informer);
    return informer;
  }

  /**
   * Ends the record of a write as soon as the informer shows the object at another version (or gone), so records of
   * objects no reconcile reads again do not wait for the time bound.
   */
  #endOwnWritesOnEvents<T extends KubernetesObject>(ref: ResourceRef<T>, informer: SharedInformer<T>): void {
    const shared = informer as unknown as SharedInformer<KubernetesObject>;
    if (this.#observedInformers.has(shared)) return;
    this.#observedInformers.add(shared);
    const ownWrites = this.#ownWrites;
    informer.addEventHandler({
      onAdd: (obj) => { ownWrites.observed(ref, obj); },
      onUpdate: (_old, obj) => { ownWrites.observed(ref, obj); },
      onDelete: (obj) => { ownWrites.observed(ref, obj, true); },
    });
  }

  /**
   * The Event recorder of `reportingController` (a qualified name, e.g. `maintpage.example.com/maintpage-operator`),
   * reporting as this Pod: one per name, so repeats are counted into one Event series whoever records them. The
   * manager sends what they hold when it stops.
   */
  eventRecorderFor(reportingController: string): EventRecorder {
    let recorder = this.#eventRecorders.get(reportingController);
    if (recorder === undefined) {
      recorder = new EventRecorder(this.client, { reportingController, reportingInstance: this.podName, logger: this.logger });
      this.#eventRecorders.set(reportingController, recorder);
    }
    return recorder;
  }

  /**
   * The status writer of `fieldManager`, one per field manager. Every writer of the manager records its writes where
   * {@link reader} reads them until the caches show them, so a reconcile reads the status it just wrote and no writer
   * sends a status another just sent.
   */
  statusWriter(fieldManager: string): StatusWriter {
    let writer = this.#statusWriters.get(fieldManager);
    if (writer === undefined) {
      writer = new StatusWriter(this.client, { fieldManager, ownWrites: this.#ownWrites });
      this.#statusWriters.set(fieldManager, writer);
    }
    return writer;
  }

  /**
   * Sends the JSON merge patch `patch` to `obj` with the manager's client and has {@link reader} show it at once: until
   * the caches hold the patched values, reads of the object return the cached version with the patch applied, whatever
   * others wrote to it meanwhile. For a change the next reconcile must see, such as a label that marks a Pod's work as
   * done. Returns the object as stored.
   */
  async mergePatch<T extends KubernetesObject>(ref: ResourceRef<T>, obj: T, patch: MergePatch): Promise<T> {
    const stored = await this.client.patch(ref, keyOf(ref, obj), { type: 'merge', patch });
    this.#ownWrites.recordPatch(ref, stored, patch);
    return stored;
  }

  /**
   * `applyOwned` with the manager's client, recorded where {@link reader} reads it until the caches show it: a reconcile
   * woken before the watch has delivered what the last one applied (its owner's status event can overtake the owned
   * object's own) reads the applied object, finds it as desired and sends nothing, where it would otherwise apply
   * again. Pass the object as `reader` returned it as `current`. Returns the object as applied (or `current` when
   * nothing was sent).
   */
  async applyOwned<T extends KubernetesObject>(ref: ResourceRef<T>, desired: ApplyConfiguration<T> | DesiredObject<T>, options: ApplyOwnedOptions<T>): Promise<T> {
    const stored = await applyOwned(this.client, ref, desired, options);
    if (stored !== options.current) this.#ownWrites.record(ref, options.current, stored);
    return stored;
  }

  /** Starts building a controller; `complete()` registers it. */
  controller(name: string): ControllerBuilder {
    if (this.#controllers.some((c) => c.name === name)) throw new Error(`a controller named "${name}" already exists; names must be unique (they label metrics)`);
    return new ControllerBuilder(this, name);
  }

  register(controller: Controller): void {
    this.#controllers.push(controller);
  }

  addHealthzCheck(name: string, check: Check): void {
    this.#probes.addCheck('healthz', name, check);
  }

  addReadyzCheck(name: string, check: Check): void {
    this.#probes.addCheck('readyz', name, check);
  }

  /** Ports the servers listen on, once started (useful with `:0`). */
  get ports(): Readonly<{ health?: number; metrics?: number }> {
    return this.#ports;
  }

  get isLeader(): boolean {
    return this.#elector?.isLeader ?? !(this.#options.leaderElection?.enabled ?? true);
  }

  /** Asks a running manager to stop gracefully; `start()` then resolves. */
  stop(): void {
    this.#stop.abort();
  }

  /**
   * Runs until {@link stop} (or `signal`). Controllers run only while this replica leads. When leadership is lost (the
   * lease could not be renewed in time: the API server or etcd was away), every reconcile is aborted at once and awaited,
   * and the manager campaigns again with its caches still warm, instead of exiting as controller-runtime does: an API
   * server outage of a few seconds no longer restarts every operator's leader (users count those restarts, and each
   * costs a full relist). Only if some reconcile ignores its abort does start() reject, and the process must exit.
   */
  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => { this.stop(); }, { once: true });
    const stopSignal = this.#stop.signal;
    await this.#startServers();
    this.#informers.start();
    this.#informersStarted = true;
    const syncTimeout = this.#options.cacheSyncTimeoutMs ?? 120_000;
    try {
      await Promise.race([
        Promise.all(this.#informers.informers().map((i) => i.waitForSync(syncTimeout))),
        new Promise((_, reject) => { stopSignal.addEventListener('abort', () => { reject(new Error('stopped before caches synced')); }, { once: true }); }),
      ]);
      this.#synced = true;
      this.logger.info({ informers: this.#informers.informers().length }, 'caches synced');

      const election = this.#options.leaderElection ?? {};
      if (election.enabled ?? true) {
        const namespace = election.namespace ?? podNamespace() ?? 'default';
        this.#elector = new LeaderElector(this.client, {
          ...election, identity: election.identity ?? `${this.podName}_${randomUUID()}`, namespace, name: election.name ?? `${this.name}-leader`,
          masterStatus: this.metrics.leaderElectionMasterStatus, lostTotal: this.metrics.leadershipLost, logger: this.logger.child({ component: 'leader-election' }),
        });
        this.logger.info({ lease: `${namespace}/${election.name ?? `${this.name}-leader`}`, identity: this.#elector.identity }, 'waiting to become leader');
      }
      await this.#leadWhileElected(stopSignal);
    } finally {
      await this.#shutdown();
    }
  }

  /** Runs the controllers during each leadership, until stopped; between leaderships, campaigns. */
  async #leadWhileElected(stopSignal: AbortSignal): Promise<void> {
    const elector = this.#elector;
    if (!elector) {
      this.#startControllers();
      await new Promise<void>((resolve) => { stopSignal.addEventListener('abort', () => { resolve(); }, { once: true }); });
      return;
    }
    while (await elector.acquire(stopSignal)) {
      this.#startControllers();
      if ((await elector.hold(stopSignal)) === 'stopped') return;
      // Another replica may lead in a moment: nothing of ours may act beside it. A reconcile that does not return
      // rejects here, and the process exits (its lease is not released, so a successor waits it out).
      await Promise.all(this.#controllers.map((c) => c.stopNow()));
      this.logger.warn(
        { controllers: this.#controllers.map((c) => c.name) },
        'leadership lost: every reconcile was stopped; campaigning again (the process stays up, its caches warm)',
      );
    }
  }

  #startControllers(): void {
    for (const controller of this.#controllers) controller.start();
    this.logger.info({ controllers: this.#controllers.map((c) => c.name) }, 'controllers started');
  }

  async #shutdown(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const timeoutMs = this.#options.gracefulShutdownTimeoutMs ?? 30_000;
    this.logger.info({ timeoutMs }, 'stopping: finishing reconciles in flight');
    await Promise.all(this.#controllers.map((c) => c.stop(timeoutMs)));
    // Only now, with no reconcile running, may a successor start; Events recorded meanwhile are sent alongside.
    await Promise.all([this.#elector?.release(), ...[...this.#eventRecorders.values()].map((recorder) => recorder.flush())]);
    await this.#informers.stop();
    await Promise.all([this.#probes.close(), this.#metricsServer?.close()]);
    await this.client.close();
    this.logger.info('stopped');
  }

  async #startServers(): Promise<void> {
    const staleMs = this.#options.watchStaleAfterMs ?? 300_000;
    this.addHealthzCheck('ping', () => undefined);
    this.addHealthzCheck('watches', () => {
      const dead = this.#informers.health(3 * staleMs).filter((h) => h.status === 'stale');
      return dead.length ? `watches silent for too long: ${dead.map((h) => h.informer).join('; ')}` : undefined;
    });
    this.addReadyzCheck('informers', () => {
      if (!this.#synced) return 'caches not synced yet';
      const unhealthy = this.#informers.health(staleMs).filter((h) => h.status !== 'ok');
      return unhealthy.length ? unhealthy.map((h) => `${h.informer}: ${h.status}${h.lastError ? ` (${h.lastError})` : ''}`).join('; ') : undefined;
    });
    this.addReadyzCheck('shutdown', () => (this.#stop.signal.aborted ? 'shutting down' : undefined));
    const health = parseBindAddress(this.#options.healthProbeBindAddress ?? ':8081');
    const metrics = parseBindAddress(this.#options.metricsBindAddress ?? ':8443');
    // First, so that an unreadable certificate fails the start before anything listens.
    if (metrics) this.#metricsServer = await this.#createMetricsServer(metrics.host);
    if (health) this.#ports.health = await this.#probes.listen(health.host, health.port);
    if (metrics && this.#metricsServer) this.#ports.metrics = await this.#metricsServer.listen(metrics.host, metrics.port);
  }

  /**
   * The metrics server: by default HTTPS with every request authenticated and authorized by the API server, which alone
   * may serve `/debug/queue` (it lists object keys); with `metricsSecure: false`, `/metrics` in plain HTTP.
   */
  async #createMetricsServer(host: string): Promise<ProbeServer> {
    const secure = this.#options.metricsSecure ?? true;
    let server: ProbeServer;
    if (secure) {
      const tls = this.#options.metricsCertDir === undefined ? this.#selfSigned(host) : await readServingCertificate(this.#options.metricsCertDir);
      const authorizer = new MetricsAuthorizer(this.client, { readerClusterRole: `${this.name}-metrics-reader`, ...this.#options.metricsAuth });
      server = new ProbeServer({ tls, guard: (req) => authorizer.check(req), probes: false });
      server.addRoute('/debug/queue', (_req, res) => {
        const queues = Object.fromEntries(this.#controllers.map((c) => [c.name, c.queue.snapshot()]));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ leader: this.isLeader, queues }, null, 2));
      });
    } else {
      server = new ProbeServer({ probes: false });
      server.addRoute('/debug/queue', (_req, res) => {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('/debug/queue lists object keys and is served only with authentication (--metrics-secure=true)\n');
      });
    }
    server.addRoute('/metrics', async (_req, res) => {
      res.writeHead(200, { 'content-type': this.metrics.registry.contentType }).end(await this.metrics.registry.metrics());
    });
    return server;
  }

  #selfSigned(host: string): ServingCertificate {
    const started = performance.now();
    const concrete = host !== '0.0.0.0' && host !== '::' && isIP(host) !== 0 ? [host] : [];
    const certificate = selfSignedCertificate({ commonName: this.name, hosts: [...new Set(['localhost', '127.0.0.1', hostname(), ...concrete])] });
    this.logger.info({ ms: Math.round(performance.now() - started) }, 'metrics served with a self-signed certificate (mount one with --metrics-cert-dir to let scrapers verify it)');
    return certificate;
  }

  /**
   * Runs the manager as the process: SIGTERM/SIGINT stop it gracefully (exit 0); a second signal exits at once
   * (exit 1), as controller-runtime; a start-up failure, or a reconcile that ignores its abort, exits 1.
   */
  async runUntilSignalled(): Promise<never> {
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals): void => {
      signals++;
      if (signals > 1) {
        this.logger.warn({ signal: sig }, 'second signal: exiting now');
        process.exit(1);
      }
      this.logger.info({ signal: sig }, 'signal received: shutting down gracefully');
      this.stop();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    try {
      await this.start();
      process.exit(0);
    } catch (error) {
      this.logger.error({ err: error }, 'manager stopped with an error');
      process.exit(1);
    }
  }
}

/** `tls.crt` and `tls.key` of a directory, as a kubernetes.io/tls Secret mounts them. */
async function readServingCertificate(dir: string): Promise<ServingCertificate> {
  const read = async (file: string): Promise<string> => {
    try {
      return await readFile(join(dir, file), 'utf8');
    } catch (error) {
      throw new Error(`metrics certificate directory ${dir}: cannot read ${file} (${error instanceof Error ? error.message : String(error)}); it must hold tls.crt and tls.key`, { cause: error });
    }
  };
  const [cert, key] = await Promise.all([read('tls.crt'), read('tls.key')]);
  return { cert, key };
}

/** Feeds the client's request observations into controller-runtime's rest_client metrics. */
// client-go labels these with the HTTP method (its `verb` label holds GET, PUT, ...), so dashboards match.
function restMetricsSink(metrics: ControllerCoreMetrics): RestClientMetricsSink {
  return {
    observeRequest(info) {
      metrics.restClientRequests.inc({ code: info.code, method: info.method, host: info.host });
      metrics.restClientRequestDuration.observe({ verb: info.method, host: info.host }, info.durationSeconds);
    },
    observeRetry(info) {
      metrics.restClientRequestRetries.inc({ code: info.code, verb: info.method, host: info.host });
    },
  };
}
