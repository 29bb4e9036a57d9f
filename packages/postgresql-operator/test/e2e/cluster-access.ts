// How the e2e spec reaches things, with only a kubeconfig and kubectl: streaming `kubectl get --watch`, and pg
// connections to a Pod's address. Locally (testkit) the test process reaches Pod addresses directly; on kind
// (E2E_KUBECONFIG) it cannot, so a pg connection goes through `kubectl port-forward` to the Pod.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { findBinaries, type E2eCluster } from '@k8s-operators/testkit';

/** The kubectl to stream with: testkit's pinned one locally, the one on PATH for an external cluster. */
async function kubectlPath(cluster: E2eCluster): Promise<string> {
  return cluster.kind === 'local' ? (await findBinaries()).kubectl : 'kubectl';
}

function spawnKubectl(path: string, cluster: E2eCluster, args: readonly string[]): ChildProcess {
  return spawn(path, args, { env: { ...process.env, KUBECONFIG: cluster.kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export interface ObjectStream {
  stop(): Promise<void>;
}

/**
 * Runs `kubectl get <args> --watch -o json` and hands over each object as it arrives: the state when the watch starts,
 * then every change. kubectl prints each object as indented JSON whose last line is a lone `}`. (A jsonpath template
 * is no good here: kubectl ends the watch silently when a `range` meets an empty list, e.g. an EndpointSlice with no
 * endpoints.)
 */
export async function watchObjects(cluster: E2eCluster, args: readonly string[], onObject: (obj: unknown) => void): Promise<ObjectStream> {
  const child = spawnKubectl(await kubectlPath(cluster), cluster, ['get', ...args, '--watch', '-o', 'json']);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  let buffer: string[] = [];
  createInterface({ input: child.stdout ?? process.stdin }).on('line', (line) => {
    buffer.push(line);
    if (line !== '}') return;
    const text = buffer.join('\n');
    buffer = [];
    onObject(JSON.parse(text));
  });
  let stopping = false;
  child.once('exit', (code) => {
    if (!stopping) console.error(`kubectl get ${args.join(' ')} --watch ended early (${code ?? 'signal'}): ${stderr}`);
  });
  return {
    stop: () => {
      stopping = true;
      return stopProcess(child);
    },
  };
}

export interface PodAddress {
  namespace: string;
  name: string;
  ip: string;
}

export interface DatabaseLogin {
  database: string;
  user: string;
  password: string;
}

/** A connected pg client to one Pod's PostgreSQL; `close()` also ends the port-forward on kind. */
export interface PodConnection {
  client: pg.Client;
  close(): Promise<void>;
}

export async function connectToPod(cluster: E2eCluster, pod: PodAddress, login: DatabaseLogin): Promise<PodConnection> {
  let forward: ChildProcess | undefined;
  let host = pod.ip;
  let port = 5432;
  if (cluster.kind === 'external') {
    ({ forward, port } = await portForward(cluster, pod));
    host = '127.0.0.1';
  }
  const client = new pg.Client({ host, port, ...login, connectionTimeoutMillis: 5_000 });
  // A server that goes away (the tests kill pods) reports on the client; the test sees it on its next query.
  client.on('error', () => undefined);
  const close = async (): Promise<void> => {
    await client.end().catch(() => undefined);
    if (forward) await stopProcess(forward);
  };
  try {
    await client.connect();
  } catch (error) {
    await close();
    throw error;
  }
  return { client, close };
}

/** kind only: `kubectl port-forward pod/<name> :5432`, resolved once it says which local port it chose. */
export async function portForward(cluster: E2eCluster, pod: PodAddress): Promise<{ forward: ChildProcess; port: number }> {
  const forward = spawnKubectl('kubectl', cluster, ['-n', pod.namespace, 'port-forward', `pod/${pod.name}`, ':5432']);
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: forward.stdout ?? process.stdin }).on('line', (line) => {
      const match = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(line);
      if (match?.[1] !== undefined) resolve(Number(match[1]));
    });
    forward.once('exit', (code) => { reject(new Error(`kubectl port-forward exited with ${code ?? 'a signal'}`)); });
  });
  return { forward, port };
}

/** Runs one query on a Pod's database and disconnects. */
export async function queryPod<R extends pg.QueryResultRow>(cluster: E2eCluster, pod: PodAddress, login: DatabaseLogin, text: string): Promise<R[]> {
  const connection = await connectToPod(cluster, pod, login);
  try {
    return (await connection.client.query<R>(text)).rows;
  } finally {
    await connection.close();
  }
}
