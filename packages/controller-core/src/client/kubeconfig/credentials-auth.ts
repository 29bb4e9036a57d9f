import type { AuthHeaders, ClusterAuth, ClusterTls } from './cluster-auth.ts';
import type { ExecCredential } from './exec-plugin.ts';
import type { ExecCredentials } from './exec-credentials.ts';
import type { TokenFile } from './token-file.ts';

export interface Credentials {
  /** Base URL without trailing slash. */
  readonly server: string;
  /** The cluster's CA and the user's static client certificate. */
  readonly tls: ClusterTls;
  readonly proxy: URL | undefined;
  /** Headers that never change: basic auth, a static bearer token, impersonation. */
  readonly fixedHeaders: AuthHeaders;
  /** Where the bearer token is read from, if it rotates. */
  readonly tokenFile?: TokenFile | undefined;
  /** The exec plugin that provides the token or client certificate. */
  readonly exec?: ExecCredentials | undefined;
}

/** A {@link ClusterAuth} over credentials controller-core reads itself: no client-node involved. */
export class CredentialsAuth implements ClusterAuth {
  readonly server: string;
  readonly proxy: URL | undefined;
  readonly #tls: ClusterTls;
  readonly #fixedHeaders: AuthHeaders;
  readonly #tokenFile: TokenFile | undefined;
  readonly #exec: ExecCredentials | undefined;
  #headers: { token: string | undefined; headers: AuthHeaders } | undefined;
  #execTls: { credential: ExecCredential; tls: ClusterTls } | undefined;

  constructor(credentials: Credentials) {
    this.server = credentials.server;
    this.proxy = credentials.proxy;
    this.#tls = credentials.tls;
    this.#fixedHeaders = credentials.fixedHeaders;
    this.#tokenFile = credentials.tokenFile;
    this.#exec = credentials.exec;
  }

  /**
   * With an exec plugin that returns a client certificate, a new object whenever the plugin returned a different
   * certificate (the client then needs new connections); the same object otherwise.
   */
  get tls(): ClusterTls {
    const credential = this.#exec?.current;
    if (credential?.clientCertificate === undefined || credential.clientKey === undefined) return this.#tls;
    if (this.#execTls?.credential === credential) return this.#execTls.tls;
    const previous = this.#execTls?.tls;
    const unchanged = previous?.cert?.equals(credential.clientCertificate) === true && previous.key?.equals(credential.clientKey) === true;
    const tls = unchanged ? previous : { ...this.#tls, cert: credential.clientCertificate, key: credential.clientKey };
    this.#execTls = { credential, tls };
    return tls;
  }

  async headers(): Promise<AuthHeaders> {
    const token =
      this.#tokenFile !== undefined ? await this.#tokenFile.token() : this.#exec !== undefined ? (await this.#exec.valid()).token : undefined;
    if (this.#headers?.token !== token || this.#headers === undefined) {
      this.#headers = { token, headers: token === undefined ? this.#fixedHeaders : { ...this.#fixedHeaders, authorization: `Bearer ${token}` } };
    }
    return this.#headers.headers;
  }

  async refresh(): Promise<void> {
    await this.#tokenFile?.reread();
    await this.#exec?.refresh();
  }
}
