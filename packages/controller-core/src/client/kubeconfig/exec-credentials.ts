import { runExecPlugin, type ExecCredential, type ExecPluginRun } from './exec-plugin.ts';

/**
 * An exec plugin's credential, cached as client-go caches it: until its expirationTimestamp, or, without one, until
 * a 401 calls {@link refresh}. Concurrent requests that find it expired share one plugin run.
 */
export class ExecCredentials {
  readonly #run: ExecPluginRun;
  #credential: ExecCredential;
  #running: Promise<ExecCredential> | undefined;

  private constructor(run: ExecPluginRun, credential: ExecCredential) {
    this.#run = run;
    this.#credential = credential;
  }

  /** Runs the plugin once now: a broken plugin fails the operator's start, and client certificates are known up front. */
  static async start(run: ExecPluginRun): Promise<ExecCredentials> {
    return new ExecCredentials(run, await runExecPlugin(run));
  }

  /** The last credential, expired or not. */
  get current(): ExecCredential {
    return this.#credential;
  }

  /** A credential that has not expired, running the plugin again if needed. */
  async valid(): Promise<ExecCredential> {
    const { expiresAt } = this.#credential;
    if (expiresAt !== undefined && Date.now() >= expiresAt) return this.refresh();
    return this.#credential;
  }

  /** Runs the plugin again (joining a run already under way); on failure the last credential stays. */
  refresh(): Promise<ExecCredential> {
    this.#running ??= runExecPlugin(this.#run)
      .then((credential) => (this.#credential = credential))
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }
}
