import { inspect } from 'node:util';

const REDACTED = '[REDACTED]';

/**
 * The header a Prism Central service account's API key is sent in, spelt as prism-go-client spells it
 * (`ntnxAPIKeyHeaderKey` in `internal/client.go` and `v4/v4.go`) and as the v4 SDKs name their `apiKeyAuthScheme`.
 */
export const API_KEY_HEADER = 'X-ntnx-api-key';

/**
 * How the operator proves itself to Prism Central: a user and password (Basic), or a service account's API key.
 * Neither lets its secret out except as the request header it is for: `toJSON` and `inspect` redact it, and `describe`
 * names the credentials for messages without it.
 */
export type PrismAuthentication = PrismCredentials | PrismApiKey;

/**
 * The Prism user and password. The password sits in a private field and comes out only as a Basic `Authorization`
 * value, so logging or serialising the configuration (`JSON.stringify`, `console.log`, pino) can never show it.
 */
export class PrismCredentials {
  readonly kind = 'basic' as const;
  /** Basic credentials log in: Prism answers with session cookies, which later requests send instead. */
  readonly usesSession = true;
  readonly username: string;
  readonly #password: string;

  constructor(username: string, password: string) {
    this.username = username;
    this.#password = password;
  }

  /** The `Authorization` header value for Basic authentication. Never log it. */
  basicAuthorization(): string {
    return `Basic ${Buffer.from(`${this.username}:${this.#password}`).toString('base64')}`;
  }

  /** The headers that authenticate a request without a session. Never log them. */
  headers(): Record<string, string> {
    return { authorization: this.basicAuthorization() };
  }

  /** How messages name these credentials, e.g. in "Prism Central refused …". */
  describe(): string {
    return `the credentials of user ${JSON.stringify(this.username)}`;
  }

  toJSON(): { username: string; password: string } {
    return { username: this.username, password: REDACTED };
  }

  [inspect.custom](): string {
    return `PrismCredentials { username: ${JSON.stringify(this.username)}, password: ${REDACTED} }`;
  }
}

/**
 * A Prism Central service account's API key, sent as `X-ntnx-api-key: <key>` on every request, v3 and v4 alike, in
 * place of Basic credentials: what prism-go-client does with `Credentials.APIKey` (v0.8.1, `internal/client.go`
 * `decorateRequestWithAuthHeaders`, `v4/v4.go` `setAuthHeader`). The key authenticates each request by itself, so
 * there is no login and no session to keep: the v4 SDKs too send it on every request (`client/api_client.go` drops
 * only `Authorization` when it has a cookie). The key sits in a private field, as the password does.
 */
export class PrismApiKey {
  readonly kind = 'api-key' as const;
  readonly usesSession = false;
  /** Where the key was configured, for messages: `PRISM_API_KEY`. */
  readonly source: string;
  readonly #key: string;

  constructor(key: string, source = 'PRISM_API_KEY') {
    this.#key = key;
    this.source = source;
  }

  /** The header that authenticates a request. Never log it. */
  headers(): Record<string, string> {
    return { [API_KEY_HEADER]: this.#key };
  }

  describe(): string {
    return `the API key in ${this.source}`;
  }

  toJSON(): { apiKey: string; source: string } {
    return { apiKey: REDACTED, source: this.source };
  }

  [inspect.custom](): string {
    return `PrismApiKey { source: ${JSON.stringify(this.source)}, apiKey: ${REDACTED} }`;
  }
}
