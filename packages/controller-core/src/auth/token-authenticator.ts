import { createHash } from 'node:crypto';
import type { KubeClient } from '../client/kube-client.ts';
import { defineResource } from '../client/resources.ts';
import { TtlCache } from './ttl-cache.ts';

/** Who a token belongs to, as a TokenReview's status.user says. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

interface TokenReview {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
  spec: { token: string; audiences?: string[] };
  status?: { authenticated?: boolean; user?: UserInfo; audiences?: string[]; error?: string };
}

const TOKEN_REVIEWS = defineResource<TokenReview>({ group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false });

export interface TokenAuthenticatorOptions {
  /**
   * The audiences a token must be bound to, e.g. a service's own name for ServiceAccount tokens projected with that
   * audience: a token for the API server is then refused, and a token for this service is useless to the API server.
   * Default: the API server's own audiences.
   */
  audiences?: readonly string[];
  /** How long an accepted token is remembered (default 60 s). */
  allowedTtlMs?: number;
  /** How long a rejected token is remembered (default 10 s). */
  deniedTtlMs?: number;
  /** At most this many tokens are remembered; the least recently used go first (default 1024). */
  maxEntries?: number;
}

export type Authentication = { user: UserInfo } | { error: string };

/**
 * Bearer tokens checked with the API server's TokenReview, as kube-rbac-proxy and controller-runtime's metrics filter
 * do. Answers are cached by the token's SHA-256 (the token itself is not kept), accepted ones longer than rejected
 * ones, and concurrent requests with one token share one review. An API server that cannot be asked throws: that is
 * no answer, and nothing is cached.
 */
export class TokenAuthenticator {
  readonly #client: Pick<KubeClient, 'create'>;
  readonly #audiences: readonly string[] | undefined;
  readonly #allowedTtlMs: number;
  readonly #deniedTtlMs: number;
  readonly #tokens: TtlCache<Authentication>;

  constructor(client: Pick<KubeClient, 'create'>, options: TokenAuthenticatorOptions = {}) {
    this.#client = client;
    this.#audiences = options.audiences;
    this.#allowedTtlMs = options.allowedTtlMs ?? 60_000;
    this.#deniedTtlMs = options.deniedTtlMs ?? 10_000;
    this.#tokens = new TtlCache(options.maxEntries ?? 1024);
  }

  authenticate(token: string): Promise<Authentication> {
    return this.#tokens.getOrLoad(createHash('sha256').update(token).digest('base64'), () => this.#review(token));
  }

  async #review(token: string): Promise<{ value: Authentication; ttlMs: number }> {
    const audiences = this.#audiences;
    const review = await this.#client.create(TOKEN_REVIEWS, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, ...(audiences === undefined ? {} : { audiences: [...audiences] }) },
    });
    const status = review.status ?? {};
    const denied = (error: string): { value: Authentication; ttlMs: number } => ({ value: { error }, ttlMs: this.#deniedTtlMs });
    if (status.authenticated !== true || status.user?.username === undefined) return denied(status.error ?? 'not authenticated');
    // An authenticator that ignores audiences answers without them: such a token was not shown to be meant for us.
    if (audiences !== undefined && !(status.audiences ?? []).some((audience) => audiences.includes(audience))) {
      return denied(`the token is not bound to the audience ${audiences.join(' or ')}`);
    }
    return { value: { user: status.user }, ttlMs: this.#allowedTtlMs };
  }
}
