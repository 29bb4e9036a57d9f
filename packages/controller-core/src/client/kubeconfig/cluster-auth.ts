/** The TLS settings of one cluster connection: verified against the kubeconfig's CA, never skipped. */
export interface ClusterTls {
  ca: Buffer | undefined;
  cert: Buffer | undefined;
  key: Buffer | undefined;
  servername: string | undefined;
}

/**
 * Request headers by lower-case name. A list is sent as one header line per value: the API server reads every line of
 * `Impersonate-Group` and `Impersonate-Extra-*` as one value and never splits a line at commas, so two groups joined as
 * "a, b" would impersonate the single group "a, b". (Over HTTP/2 undici joins a list into one line; the client speaks
 * HTTP/1.1.)
 */
export type AuthHeaders = Record<string, string | string[]>;

/** The server, TLS material and credentials of one cluster connection, however they were configured. */
export interface ClusterAuth {
  /** Base URL without trailing slash. */
  readonly server: string;
  /** Current TLS material; may be a new object after refresh() (exec plugins that return client certificates). */
  readonly tls: ClusterTls;
  /**
   * The proxy requests to the server go through (an http or https URL, maybe with credentials), or undefined to connect
   * directly: the kubeconfig's `proxy-url`, else HTTPS_PROXY unless NO_PROXY exempts the server, as client-go decides
   * (see `proxy/environment-proxy.ts`).
   */
  readonly proxy?: URL | undefined;
  /** Authentication and impersonation headers (lower-case names) for the next request; refreshes expired credentials. */
  headers(): Promise<AuthHeaders>;
  /** Re-reads credentials now (called after a 401). */
  refresh(): Promise<void>;
}
