import type { IncomingMessage } from 'node:http';
import { TokenAuthenticator, type Authentication, type UserInfo } from '../auth/token-authenticator.ts';
import { TtlCache } from '../auth/ttl-cache.ts';
import type { KubeClient } from '../client/kube-client.ts';
import { defineResource } from '../client/resources.ts';

interface SubjectAccessReview {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
  spec: Omit<UserInfo, 'username'> & { user: string; nonResourceAttributes: { path: string; verb: string } };
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

const SUBJECT_ACCESS_REVIEWS = defineResource<SubjectAccessReview>({ group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false });

export interface MetricsAuthOptions {
  /** The ClusterRole that grants `get` on `/metrics`, named in 403 answers (e.g. `maintpage-operator-metrics-reader`). */
  readerClusterRole: string;
  /** How long an accepted token and an allowed request are remembered (default 60 s). */
  allowedTtlMs?: number;
  /** How long a rejected token and a denied request are remembered (default 10 s). */
  deniedTtlMs?: number;
  /** At most this many tokens and as many decisions are remembered; the least recently used go first (default 1024). */
  maxEntries?: number;
}

/** The answer to a request that may not go on: its status and a plain-text body that says what to do. */
export interface Refusal {
  status: 401 | 403 | 500;
  body: string;
}

type Decision = { allowed: true } | { allowed: false; reason: string };

/**
 * controller-runtime's `filters.WithAuthenticationAndAuthorization` for the metrics server: the caller's bearer token
 * is checked with a TokenReview, then `<verb>` on the request's path (a non-resource URL) with a SubjectAccessReview.
 * Both answers are cached, positive ones longer than negative ones, so a scrape every few seconds costs the API server
 * two requests a minute per scraper; concurrent requests with one token share one review. An API server that cannot be
 * asked is not an answer: nothing is cached and the caller gets a 500.
 */
export class MetricsAuthorizer {
  readonly #client: KubeClient;
  readonly #role: string;
  readonly #allowedTtlMs: number;
  readonly #deniedTtlMs: number;
  readonly #tokens: TokenAuthenticator;
  readonly #decisions: TtlCache<Decision>;

  constructor(client: KubeClient, options: MetricsAuthOptions) {
    this.#client = client;
    this.#role = options.readerClusterRole;
    this.#allowedTtlMs = options.allowedTtlMs ?? 60_000;
    this.#deniedTtlMs = options.deniedTtlMs ?? 10_000;
    this.#tokens = new TokenAuthenticator(client, options);
    this.#decisions = new TtlCache(options.maxEntries ?? 1024);
  }

  /** Undefined when the request may be served; otherwise the answer to send instead. */
  async check(req: IncomingMessage): Promise<Refusal | undefined> {
    const path = new URL(req.url ?? '/', 'http://metrics').pathname;
    const verb = req.method === undefined || req.method === 'HEAD' ? 'get' : req.method.toLowerCase();
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) {
      return { status: 401, body: `Unauthorized: send a bearer token (Authorization: Bearer <token>) of a user or ServiceAccount that may get ${path}, e.g. bound to the ClusterRole ${this.#role}\n` };
    }
    let authentication: Authentication;
    let decision: Decision;
    try {
      authentication = await this.#tokens.authenticate(token);
      if ('error' in authentication) return { status: 401, body: `Unauthorized: the bearer token was not accepted (TokenReview: ${authentication.error})\n` };
      const { user } = authentication;
      const key = JSON.stringify([user.username, user.uid, user.groups, user.extra, verb, path]);
      decision = await this.#decisions.getOrLoad(key, () => this.#authorize(user, verb, path));
      if (!decision.allowed) return { status: 403, body: this.#forbidden(user.username, verb, path, decision.reason) };
    } catch (error) {
      return { status: 500, body: `Internal Server Error: could not check the caller's access with the API server: ${error instanceof Error ? error.message : String(error)}\n` };
    }
    return undefined;
  }

  async #authorize(user: UserInfo, verb: string, path: string): Promise<{ value: Decision; ttlMs: number }> {
    const review = await this.#client.create(SUBJECT_ACCESS_REVIEWS, {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
      spec: {
        user: user.username,
        ...(user.uid === undefined ? {} : { uid: user.uid }),
        ...(user.groups === undefined ? {} : { groups: user.groups }),
        ...(user.extra === undefined ? {} : { extra: user.extra }),
        nonResourceAttributes: { path, verb },
      },
    });
    const status = review.status ?? {};
    if (status.allowed === true) return { value: { allowed: true }, ttlMs: this.#allowedTtlMs };
    return { value: { allowed: false, reason: status.reason ?? status.evaluationError ?? '' }, ttlMs: this.#deniedTtlMs };
  }

  #forbidden(username: string, verb: string, path: string, reason: string): string {
    const serviceAccount = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
    const subject = serviceAccount ? `--serviceaccount=${serviceAccount[1] ?? ''}:${serviceAccount[2] ?? ''}` : `--user=${username}`;
    const grant = path === '/metrics'
      ? `bind the ClusterRole ${this.#role} (kubectl create clusterrolebinding <name> --clusterrole=${this.#role} ${subject})`
      : `grant it ${verb} on the non-resource URL ${path} (a ClusterRole with rules: [{nonResourceURLs: ["${path}"], verbs: ["${verb}"]}], bound with kubectl create clusterrolebinding <name> --clusterrole=<that role> ${subject}); ${this.#role} grants /metrics only`;
    return `Forbidden: user "${username}" may not ${verb} ${path}: ${grant}${reason === '' ? '' : ` (SubjectAccessReview: ${reason})`}\n`;
  }
}
