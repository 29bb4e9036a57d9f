// Starts a simulator: wires the parts together and runs every Prism request, v3 or v4, through the same steps a
// client would meet on a real Prism Central: the gateway's faults (latency, 5xx, 429, dropped connections),
// authentication, then the endpoint. v3 and v4 share one store of VMs and tasks.

import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_BASE_PATH, serveAdmin } from './admin-api.ts';
import { SessionAuthenticator, authOptionsProblem, unauthorizedReply, type AuthenticatedBy } from './auth.ts';
import { createServingCertificates } from './certificates.ts';
import { CategoryStore, DEFAULT_CATEGORIES, type CategorySeed } from './categories.ts';
import { PrismApiError, errorBody } from './errors.ts';
import { FaultInjector, type FaultController, type FaultRule, type RequestAction } from './faults.ts';
import { readJsonBody, writeReply, type HttpReply } from './http-io.ts';
import { IdempotenceRegistry } from './idempotence.ts';
import { inspectSimulator, type SimulatorInspection } from './inspection.ts';
import { DEFAULT_CLUSTERS, DEFAULT_IMAGES, DEFAULT_PRISM_CENTRAL, DEFAULT_PROJECTS, DEFAULT_SUBNETS, Inventory, type ClusterSeed, type ImageSeed, type PrismCentralSeed, type ProjectSeed, type SubnetSeed } from './inventory.ts';
import { servePrismEndpoint } from './prism-api.ts';
import { PRISM_BASE_PATH, kindOfPath, matchEndpoint, type SimulatedEndpoint } from './prism-endpoints.ts';
import { RequestStats, type LoggedRequest } from './request-stats.ts';
import { TaskRunner, isoSeconds } from './tasks.ts';
import { V4Api } from './v4-api.ts';
import { isV4Path, matchV4Endpoint, v4NamespaceOf } from './v4-endpoints.ts';
import { V4ApiError, v4ErrorReply } from './v4-errors.ts';
import { VmService, type EditConflictMode, type SimulatorTimings } from './vm-service.ts';
import { VmStore } from './vm-store.ts';

/** The APIs a simulator serves (`PrismSimulatorOptions.apis`). */
export type ServedApis = 'both' | 'v3' | 'v4';
export const SERVED_APIS: readonly ServedApis[] = ['both', 'v3', 'v4'];

export interface PrismSimulatorOptions {
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Serve HTTPS with a certificate from a fresh CA (see `caCertPem`). Default false (plain HTTP). */
  tls?: boolean;
  /** Extra DNS names or IPs for the certificate, besides localhost, 127.0.0.1 and ::1. */
  tlsHostnames?: string[];
  /** Default `admin`. */
  username?: string;
  /** Default `Nutanix/4u`, Prism's well-known factory password. */
  password?: string;
  /**
   * False: Basic credentials are refused, so the simulator is a Prism Central the client reaches with an API key only
   * (`apiKeys` must then name one). Default true.
   */
  basicAuth?: boolean;
  /**
   * API keys of Prism Central service accounts, accepted in the `X-ntnx-api-key` header on v3 and v4 requests; a wrong
   * one gets the same non-JSON 401 as wrong Basic credentials. Default none. Visible ASCII without spaces.
   */
  apiKeys?: string[];
  /** Default: one cluster, `sim-cluster-01`. */
  clusters?: ClusterSeed[];
  /** Default: three images. */
  images?: ImageSeed[];
  /** Default: `vlan10-ipam` and `vlan30-ipam` (IPAM) and `vlan20-dhcp` (external DHCP). */
  subnets?: SubnetSeed[];
  /** Projects VMs can be put in. Default: `default`. */
  projects?: ProjectSeed[];
  /** The Prism Central's own cluster entity, listed with the clusters. Default `sim-prism-central`. */
  prismCentral?: PrismCentralSeed;
  /** Category keys and values that exist from the start. Default: `Environment` with `Dev`, `Testing`, `Staging`, `Prod`, `Production`. */
  categories?: CategorySeed[];
  /** Task durations; each defaults to 200 ms. `learnedIpMs` also defaults to 200 ms. */
  timings?: Partial<SimulatorTimings>;
  /** Default `async-task`: a stale spec_version gets 202 and a FAILED task. */
  editConflicts?: EditConflictMode;
  /**
   * Which APIs are served. Default `both`; `v4` answers every v3 path with 404 (a Prism Central whose v3 API is gone),
   * `v3` every v4 path (one from before v4), so a client can be shown to use only one of them.
   */
  apis?: ServedApis;
  /** Fault rules active from the start, and the seed their probabilities draw from (default 1). */
  faults?: { seed?: number; rules?: FaultRule[] };
  /**
   * The wall clock (ms since the epoch) for timestamps, session expiry and idempotence-identifier expiry.
   * Tests pass a fake one to expire sessions without waiting 15 minutes. Task durations use real timers.
   */
  now?: () => number;
}

export interface PrismSimulator {
  /** Origin of the server, e.g. `https://127.0.0.1:40123`; the v3 API is below `${url}/api/nutanix/v3`. */
  url: string;
  host: string;
  port: number;
  /** PEM of the CA that signed the server certificate; only with `tls: true`. */
  caCertPem?: string;
  username: string;
  password: string;
  /** Whether Basic credentials (`username`, `password`) are accepted. */
  basicAuth: boolean;
  /** The API keys accepted in `X-ntnx-api-key`. */
  apiKeys: readonly string[];
  /** The Prism Element clusters VMs can be placed on (not the Prism Central entity), with their storage containers and GPUs. */
  clusters: readonly ClusterSeed[];
  images: readonly ImageSeed[];
  subnets: readonly SubnetSeed[];
  projects: readonly ProjectSeed[];
  prismCentral: PrismCentralSeed;
  /** The category keys and values the simulator started with (`inspect().categories` has the current ones). */
  categories: readonly CategorySeed[];
  faults: FaultController;
  /** A snapshot of VMs and traffic counts. */
  inspect(): SimulatorInspection;
  /** Every Prism request (v3 and v4, not /__sim) in the order answered: the latest REQUEST_LOG_LIMIT of them. */
  requestLog(): LoggedRequest[];
  /** Closes every connection, cancels running tasks and stops listening. */
  stop(): Promise<void>;
}

export const DEFAULT_USERNAME = 'admin';
export const DEFAULT_PASSWORD = 'Nutanix/4u';
export const DEFAULT_TIMINGS: SimulatorTimings = { createMs: 200, updateMs: 200, deleteMs: 200, learnedIpMs: 200 };

export async function startPrismSimulator(options: PrismSimulatorOptions = {}): Promise<PrismSimulator> {
  const now = options.now ?? Date.now;
  const username = options.username ?? DEFAULT_USERNAME;
  const password = options.password ?? DEFAULT_PASSWORD;
  const basicAuth = options.basicAuth ?? true;
  const apiKeys = [...(options.apiKeys ?? [])];
  // Before anything listens: a simulator nobody can log in to, or a key no client can send, is a mistake to say at once.
  const authProblem = authOptionsProblem({ basicAuth, apiKeys });
  if (authProblem !== undefined) throw new Error(authProblem);
  const inventory = new Inventory({
    clusters: options.clusters ?? DEFAULT_CLUSTERS,
    images: options.images ?? DEFAULT_IMAGES,
    subnets: options.subnets ?? DEFAULT_SUBNETS,
    projects: options.projects ?? DEFAULT_PROJECTS,
    prismCentral: options.prismCentral ?? DEFAULT_PRISM_CENTRAL,
    startedAt: isoSeconds(now()),
  });
  const store = new VmStore();
  const categories = new CategoryStore(options.categories ?? DEFAULT_CATEGORIES, (key, value) => store.carriersOf(key, value));
  const faults = new FaultInjector(options.faults?.seed ?? 1, options.faults?.rules ?? []);
  const stats = new RequestStats();
  const tasks = new TaskRunner(now, faults);
  const idempotence = new IdempotenceRegistry(now);
  const user = { kind: 'user', name: username, uuid: randomUUID() };
  const timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const vms = new VmService({
    inventory,
    categories,
    store,
    tasks,
    idempotence,
    timings,
    editConflicts: options.editConflicts ?? 'async-task',
    now,
    owner: user,
  });
  const authenticator = new SessionAuthenticator({ username, password, basicAuth, apiKeys, now, secureCookies: options.tls === true });
  const inspect = (): SimulatorInspection => inspectSimulator(vms, stats, tasks, categories);
  const stopping = new AbortController();

  const v4 = new V4Api({ vms, store, tasks, inventory, categories, learnedIpMs: timings.learnedIpMs, user });

  /**
   * The steps every API request goes through, v3 or v4: the gateway's faults (latency, 5xx, 429, dropped
   * connections), authentication, then the endpoint. `api` says how this API words its errors and serves.
   */
  const serveRequest = async (req: IncomingMessage, res: ServerResponse, endpoint: SimulatedEndpoint | undefined, api: { faultReply: (action: RequestAction) => HttpReply | 'drop'; serve: () => Promise<HttpReply> }): Promise<void> => {
    const method = req.method ?? 'GET';
    const end = stats.begin();
    res.once('close', end);
    const decision = faults.decideRequest(endpoint);
    let authenticatedBy: AuthenticatedBy | undefined;
    const finish = (reply: HttpReply | 'drop'): void => {
      stats.record(method, endpoint ?? 'unknown', reply === 'drop' ? 'dropped' : reply.status, {
        path: req.url ?? '',
        ifMatch: req.headers['if-match'] !== undefined,
        ...(authenticatedBy === undefined ? {} : { authenticatedBy }),
      });
      if (reply === 'drop') req.socket.destroy();
      else writeReply(res, reply);
    };
    if (decision.latencyMs > 0) await sleep(decision.latencyMs, undefined, { signal: stopping.signal });
    if (decision.before) {
      finish(api.faultReply(decision.before));
      return;
    }
    let reply: HttpReply;
    const auth = authenticator.authenticate(req.headers);
    if (!auth.ok) reply = unauthorizedReply();
    else {
      authenticatedBy = auth.by;
      reply = await api.serve();
      if (auth.setCookie.length > 0) reply.headers = { ...reply.headers, 'set-cookie': auth.setCookie };
    }
    finish(decision.after ? api.faultReply(decision.after) : reply);
  };

  const handlePrism = (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const method = req.method ?? 'GET';
    const served = options.apis !== 'v4' && path.startsWith(`${PRISM_BASE_PATH}/`);
    const match = served ? matchEndpoint(method, path.slice(PRISM_BASE_PATH.length)) : undefined;
    // Errors carry the kind of entity the path addresses, whether or not the simulator serves that endpoint.
    const kind = kindOfPath(path);
    return serveRequest(req, res, match?.endpoint, {
      faultReply: (action) => faultReply(action, kind),
      serve: () => {
        if (!match) return Promise.resolve({ status: 404, json: errorBody(404, kind, { reason: 'NOT_FOUND', message: `${method} ${path} is not an endpoint of the Prism Central v3 API simulator.` }) });
        return servePrismEndpoint(match, () => readJsonBody(req, kind), { vms, tasks, idempotence, inventory, store, categories, user }).catch((error: unknown) => errorReply(error, kind));
      },
    });
  };

  const handleV4 = (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? 'GET';
    const match = options.apis === 'v3' ? undefined : matchV4Endpoint(method, url.pathname);
    const namespace = v4NamespaceOf(url.pathname);
    return serveRequest(req, res, match?.endpoint, {
      faultReply: (action) => v4FaultReply(action, namespace),
      serve: () =>
        v4.serve(match, { method, url, headers: req.headers, readBody: () => readJsonBody(req, undefined) }, namespace).catch((error: unknown) =>
          v4ErrorReply(namespace, new V4ApiError(500, 'INTERNAL_ERROR', 'PLAT-10500', error instanceof Error ? error.message : String(error))),
        ),
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://simulator').pathname;
    if (path === ADMIN_BASE_PATH || path.startsWith(`${ADMIN_BASE_PATH}/`)) {
      const reply = await serveAdmin(req.method ?? 'GET', path, () => readJsonBody(req, 'admin'), { faults, inspect, requestLog: () => stats.requestLog() }).catch((error: unknown) => errorReply(error, 'admin'));
      writeReply(res, reply);
      return;
    }
    if (isV4Path(path)) {
      const host = req.headers.host ?? 'localhost';
      await handleV4(req, res, new URL(req.url ?? '/', `${options.tls === true ? 'https' : 'http'}://${host}`));
      return;
    }
    await handlePrism(req, res, path);
  };

  let certificates: Awaited<ReturnType<typeof createServingCertificates>> | undefined;
  let server: Server;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch(() => {
      // Only a stop() during an injected delay lands here; the connection is going away anyway.
      req.socket.destroy();
    });
  };
  if (options.tls === true) {
    certificates = await createServingCertificates(options.tlsHostnames);
    server = createHttpsServer({ cert: certificates.certPem, key: certificates.keyPem }, listener);
  } else {
    server = createHttpServer(listener);
  }
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;

  let stopped: Promise<void> | undefined;
  return {
    url: `${options.tls === true ? 'https' : 'http'}://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}`,
    host,
    port,
    ...(certificates ? { caCertPem: certificates.caCertPem } : {}),
    username,
    password,
    basicAuth,
    apiKeys,
    clusters: inventory.clusters.map(({ name, uuid, storageContainers, gpus }) => ({ name, uuid, storageContainers, gpus })),
    images: inventory.images,
    subnets: inventory.subnets.map(({ name, uuid, type, cidr, ipam, clusterUuid, vpcUuid }) => ({ name, uuid, type, cidr, ipam, ...(clusterUuid === undefined ? {} : { clusterUuid }), ...(vpcUuid === undefined ? {} : { vpcUuid }) })),
    projects: inventory.projects.map(({ name, uuid }) => ({ name, uuid })),
    prismCentral: { name: inventory.prismCentral.name, uuid: inventory.prismCentral.uuid },
    categories: structuredClone(options.categories ?? DEFAULT_CATEGORIES),
    faults,
    inspect,
    requestLog: () => stats.requestLog(),
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        stopping.abort();
        tasks.stop();
        server.close(() => { resolve(); });
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

function faultReply(action: RequestAction, kind: string | undefined): HttpReply | 'drop' {
  switch (action.kind) {
    case 'drop':
      return 'drop';
    case 'error':
      return { status: action.status, json: errorBody(action.status, kind, { reason: 'INTERNAL_ERROR', message: 'Internal Server Error (injected by the simulator).' }) };
    case 'rate-limit':
      return {
        status: 429,
        headers: { 'retry-after': String(action.retryAfterSeconds) },
        json: errorBody(429, kind, { reason: 'RATE_LIMIT_EXCEEDED', message: `Too many requests; retry after ${action.retryAfterSeconds} seconds.` }),
      };
  }
}

function v4FaultReply(action: RequestAction, namespace: string): HttpReply | 'drop' {
  switch (action.kind) {
    case 'drop':
      return 'drop';
    case 'error':
      return v4ErrorReply(namespace, new V4ApiError(action.status, 'INTERNAL_ERROR', 'PLAT-10500', 'Internal Server Error (injected by the simulator).'));
    case 'rate-limit':
      return v4ErrorReply(
        namespace,
        new V4ApiError(429, 'RATE_LIMIT_EXCEEDED', 'PLAT-10003', `Too many requests; retry after ${action.retryAfterSeconds} seconds.`, { 'retry-after': String(action.retryAfterSeconds) }),
      );
  }
}

function errorReply(error: unknown, kind: string | undefined): HttpReply {
  if (error instanceof PrismApiError) return { status: error.status, json: error.toBody() };
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, json: errorBody(500, kind, { reason: 'INTERNAL_ERROR', message }) };
}
