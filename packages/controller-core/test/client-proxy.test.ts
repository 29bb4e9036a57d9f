import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlane } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KubeClient } from '../src/client/kube-client.ts';
import { loadClusterAuth } from '../src/client/kubeconfig/load-cluster-auth.ts';
import { Resources } from '../src/client/resources.ts';
import { base64, createKeyPair, rejection, singleContext, writeKubeconfig } from './kubeconfig-fixtures.ts';

/** A CONNECT proxy, as corporate proxies tunnel https: it records the `host:port` of every tunnel it opens. */
interface ConnectProxy {
  url: string;
  tunnels: string[];
  close(): Promise<void>;
}

async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createHttpServer((_req, res) => { res.writeHead(405).end('this proxy only tunnels (CONNECT)\n'); });
  server.on('connection', track);
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    tunnels.push(target);
    const { hostname, port } = new URL(`http://${target}`);
    const upstream = connect(Number(port), hostname.replace(/^\[(.*)\]$/, '$1'), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const port = await listen(server, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${String(port)}`,
    tunnels,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Forwards TCP from `host` (an address that is not loopback) to the API server, which listens on loopback only. */
async function startForwarder(host: string, to: URL): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    const upstream = connect(Number(to.port), to.hostname);
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  const port = await listen(server, host);
  return {
    port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * An address of this machine that is not loopback. Go, and so client-go, never proxies requests to loopback, whatever
 * HTTPS_PROXY says: the environment's proxy can only be seen at work on a server reached under another address.
 */
function nonLoopbackAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a?.family === 'IPv4' && !a.internal);
  if (address === undefined) throw new Error('this test needs a network interface with an IPv4 address that is not loopback');
  return address.address;
}

let dir: string;
let controlPlane: ControlPlane;
let admin: { cluster: Record<string, unknown>; user: Record<string, unknown> };
let proxy: ConnectProxy;
let forwarder: Awaited<ReturnType<typeof startForwarder>>;
let address: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-proxy-'));
  controlPlane = await ControlPlane.start({ dir: join(dir, 'cluster') });
  const config = parse(await readFile(controlPlane.adminKubeconfig, 'utf8')) as { clusters: { cluster: Record<string, unknown> }[]; users: { user: Record<string, unknown> }[] };
  admin = { cluster: config.clusters[0]?.cluster ?? {}, user: config.users[0]?.user ?? {} };
  proxy = await startConnectProxy();
  address = nonLoopbackAddress();
  forwarder = await startForwarder(address, new URL(controlPlane.url));
}, 120_000);

afterAll(async () => {
  await proxy.close();
  await forwarder.close();
  await controlPlane.stop();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Lists namespaces with a client loaded by the production loader from the admin kubeconfig with `cluster` changes,
 * under `env`; returns the tunnels the proxy opened meanwhile.
 */
async function listThrough(cluster: Record<string, unknown>, env: Record<string, string>): Promise<string[]> {
  counter++;
  const kubeconfig = await writeKubeconfig(join(dir, `case-${String(counter)}`, 'config'), singleContext({ ...admin.cluster, ...cluster }, admin.user));
  const client = KubeClient.fromClusterAuth(await loadClusterAuth({ kubeconfig, env }));
  const before = proxy.tunnels.length;
  try {
    const { items } = await client.list(Resources.Namespace);
    expect(items.map((n) => n.metadata?.name)).toContain('default');
    return proxy.tunnels.slice(before);
  } finally {
    await client.close();
  }
}

describe('KubeClient through a proxy, as client-go', () => {
  it('HTTPS_PROXY: a server that is not loopback is reached through a CONNECT tunnel, its certificate verified inside', async () => {
    const server = `https://${address}:${String(forwarder.port)}`;
    // The API server's certificate names kubernetes.default.svc, not this machine's address.
    const tunnels = await listThrough({ server, 'tls-server-name': 'kubernetes.default.svc' }, { HTTPS_PROXY: proxy.url });
    expect(tunnels).toEqual([`${address}:${String(forwarder.port)}`]);
  });

  it('NO_PROXY naming the server (a CIDR, an IP, with or without its port) connects directly; HTTP_PROXY never applies to https', async () => {
    const server = `https://${address}:${String(forwarder.port)}`;
    const cluster = { server, 'tls-server-name': 'kubernetes.default.svc' };
    for (const noProxy of [`${address}/32`, `other.example, ${address}`, `${address}:${String(forwarder.port)}`]) {
      expect(await listThrough(cluster, { HTTPS_PROXY: proxy.url, NO_PROXY: noProxy })).toEqual([]);
    }
    expect(await listThrough(cluster, { HTTPS_PROXY: proxy.url, NO_PROXY: `${address}:1` })).toHaveLength(1);
    expect(await listThrough(cluster, { HTTP_PROXY: proxy.url })).toEqual([]);
  });

  it('HTTPS_PROXY never applies to a server on loopback', async () => {
    expect(await listThrough({}, { HTTPS_PROXY: proxy.url, https_proxy: proxy.url })).toEqual([]);
  });

  it('proxy-url in the kubeconfig: every request goes through it, loopback too, whatever NO_PROXY says', async () => {
    const api = new URL(controlPlane.url);
    expect(await listThrough({ 'proxy-url': proxy.url }, { NO_PROXY: '*' })).toEqual([api.host]);
  });

  it('through the tunnel the server must still present a certificate the kubeconfig CA signed', async () => {
    const otherCa = await createKeyPair(join(dir, 'other-ca'), 'other-ca');
    const before = proxy.tunnels.length;
    const error = await rejection(listThrough({ 'proxy-url': proxy.url, 'certificate-authority-data': base64(otherCa.cert) }, {}));
    expect(proxy.tunnels.length).toBe(before + 1);
    expect(`${error.message} ${String((error.cause as Error | undefined)?.message)}`).toMatch(/unable to verify the first certificate|self.signed|UNABLE_TO_VERIFY/i);
  });
});
