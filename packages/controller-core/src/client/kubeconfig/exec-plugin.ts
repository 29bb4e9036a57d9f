import { spawn } from 'node:child_process';
import { createSecureContext } from 'node:tls';
import { isMapping } from './kubeconfig-file.ts';

export const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

/** A user's `exec` stanza, validated. */
export interface ExecSettings {
  /** A name looked up in PATH, or a path (made absolute against the kubeconfig's directory). */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion: ExecApiVersion;
  readonly installHint: string | undefined;
  readonly provideClusterInfo: boolean;
}

/** `spec.cluster` of the ExecCredential a plugin receives (client.authentication.k8s.io `Cluster`). */
export interface ExecClusterInfo {
  readonly server: string;
  readonly 'tls-server-name'?: string;
  readonly 'certificate-authority-data'?: string;
  readonly config?: unknown;
}

export interface ExecPluginRun {
  readonly settings: ExecSettings;
  /** The user entry, for messages: `user "alice" in /home/me/.kube/config`. */
  readonly user: string;
  /** Given to the plugin when its settings ask for cluster info. */
  readonly cluster: ExecClusterInfo | undefined;
  /** The environment the plugin's own `env` is merged over. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  /** The plugin is killed after this long: a plugin waiting for a browser login must not hang the operator. */
  readonly timeoutMs: number;
}

/** The credential a plugin printed. */
export interface ExecCredential {
  readonly token: string | undefined;
  readonly clientCertificate: Buffer | undefined;
  readonly clientKey: Buffer | undefined;
  /** Epoch milliseconds; undefined means valid until the API server refuses it (a 401 runs the plugin again). */
  readonly expiresAt: number | undefined;
}

/** stdout holds a credential, at most a few KiB; the caps only bound a plugin gone wrong. */
const MAX_STDOUT_BYTES = 4 * 1024 * 1024;
const MAX_STDERR_BYTES = 64 * 1024;
const STDERR_LINES_QUOTED = 10;

/**
 * Runs an exec credential plugin once, as client-go does: non-interactive (stdin is /dev/null), the ExecCredential
 * request in KUBERNETES_EXEC_INFO, the credential read from stdout. Errors quote the command and the start of stderr,
 * never stdout: it holds the credential.
 */
export async function runExecPlugin(run: ExecPluginRun): Promise<ExecCredential> {
  const { settings } = run;
  const request = {
    apiVersion: settings.apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...(run.cluster === undefined ? {} : { cluster: run.cluster }) },
  };
  const env: Record<string, string | undefined> = { ...run.environment };
  for (const { name, value } of settings.env) env[name] = value;
  env.KUBERNETES_EXEC_INFO = JSON.stringify(request);
  const what = `exec plugin "${settings.command}" of ${run.user}`;

  const output = await new Promise<Buffer>((resolve, reject) => {
    // Its own process group, so a timeout kills whatever the plugin started too (a shell script's children).
    const child = spawn(settings.command, settings.args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout = new Capped(MAX_STDOUT_BYTES);
    const stderr = new Capped(MAX_STDERR_BYTES);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.add(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.add(chunk);
    });
    let settled = false;
    const settle = (error: Error | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error === undefined) resolve(stdout.bytes());
      else reject(error);
    };
    const timer = setTimeout(() => {
      killGroup(child.pid);
      settle(new Error(`${what} did not finish within ${run.timeoutMs / 1000} s and was killed${quoted(stderr)}`));
    }, run.timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      settle(new Error(spawnFailure(what, settings, error)));
    });
    child.on('close', (code, signal) => {
      if (code === 0) settle(stdout.truncated ? new Error(`${what} printed more than ${MAX_STDOUT_BYTES} bytes`) : undefined);
      else if (signal !== null) settle(new Error(`${what} was killed by ${signal}${quoted(stderr)}`));
      else settle(new Error(`${what} failed with exit code ${code ?? 'unknown'}${quoted(stderr)}`));
    });
  });
  return parseExecCredential(what, settings.apiVersion, output);
}

function spawnFailure(what: string, settings: ExecSettings, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') {
    const hint = settings.installHint === undefined ? '' : `\n\n${settings.installHint}`;
    return `${what} cannot run: executable "${settings.command}" not found${hint}`;
  }
  if (error.code === 'EACCES') return `${what} cannot run: "${settings.command}" is not executable`;
  return `${what} cannot run: ${error.message}`;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function parseExecCredential(what: string, apiVersion: ExecApiVersion, output: Buffer): ExecCredential {
  const parsed = parseJson(output.toString('utf8'));
  if (parsed === NOT_JSON) throw new Error(`${what} printed no JSON on stdout (${output.length} bytes): it must print an ExecCredential`);
  if (!isMapping(parsed) || parsed.kind !== 'ExecCredential') {
    throw new Error(`${what} printed JSON that is not an ExecCredential (kind must be ExecCredential)`);
  }
  if (parsed.apiVersion !== apiVersion) {
    const returned = typeof parsed.apiVersion === 'string' && /^[\w./-]{1,100}$/.test(parsed.apiVersion) ? parsed.apiVersion : 'another';
    throw new Error(`${what} is configured for apiVersion ${apiVersion} but returned ${returned}`);
  }
  const status = parsed.status;
  if (!isMapping(status)) throw new Error(`${what} returned an ExecCredential without status`);
  const token = optionalString(what, status, 'token');
  const certificate = optionalString(what, status, 'clientCertificateData');
  const key = optionalString(what, status, 'clientKeyData');
  if (token === undefined && certificate === undefined && key === undefined) {
    throw new Error(`${what} returned neither a token nor a client certificate and key`);
  }
  if ((certificate === undefined) !== (key === undefined)) {
    throw new Error(`${what} returned only one of clientCertificateData and clientKeyData; it must return both`);
  }
  if (certificate !== undefined && key !== undefined) {
    try {
      createSecureContext({ cert: certificate, key });
    } catch (error) {
      throw new Error(`${what} returned a client certificate and key that TLS cannot use: ${(error as Error).message}`, { cause: error });
    }
  }
  return {
    token,
    clientCertificate: certificate === undefined ? undefined : Buffer.from(certificate),
    clientKey: key === undefined ? undefined : Buffer.from(key),
    expiresAt: expiry(what, status.expirationTimestamp),
  };
}

const NOT_JSON = Symbol('not JSON');

/** JSON.parse's error quotes the text, a credential here: it is dropped, not chained. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function optionalString(what: string, status: Record<string, unknown>, key: string): string | undefined {
  const value = status[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`${what} returned status.${key} that is not a string`);
  return value;
}

function expiry(what: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw new Error(`${what} returned status.expirationTimestamp that is not an RFC 3339 time`);
  return at;
}

function quoted(stderr: Capped): string {
  const lines = stderr
    .bytes()
    .toString('utf8')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '')
    .slice(0, STDERR_LINES_QUOTED);
  return lines.length === 0 ? ' (no stderr)' : `; stderr:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}

/** Output kept up to a limit. */
class Capped {
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  truncated = false;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(chunk: Buffer): void {
    const room = this.#limit - this.#size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(kept);
    this.#size += kept.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}
