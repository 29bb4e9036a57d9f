import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { base64, singleContext, rejection, writeKubeconfig, useTestPki } from '../../../test/kubeconfig-fixtures.ts';
import type { ClusterAuth } from './cluster-auth.ts';
import { loadClusterAuth } from './load-cluster-auth.ts';

const pki = useTestPki('ca', 'client', 'other');
let counter = 0;
afterEach(() => {
  vi.useRealTimers();
});

const server = 'https://api.example:6443';

/** Writes a one-context kubeconfig into a fresh subdirectory and loads it. */
async function load(cluster: object, user: object = {}): Promise<ClusterAuth> {
  return loadClusterAuth({ kubeconfig: await write(cluster, user) });
}
async function write(cluster: object, user: object = {}): Promise<string> {
  counter++;
  return writeKubeconfig(join(pki.dir, `case-${counter}`, 'config'), singleContext(cluster, user));
}
const currentPath = (): string => join(pki.dir, `case-${counter}`, 'config');

describe('cluster', () => {
  it('server (trailing slash dropped, bare host taken as https), CA data, tls-server-name', async () => {
    const auth = await load({ server: 'https://api.example:6443/', 'certificate-authority-data': base64(pki.ca.cert), 'tls-server-name': 'kubernetes.internal' });
    expect(auth.server).toBe('https://api.example:6443');
    expect(auth.tls).toEqual({ ca: pki.ca.cert, cert: undefined, key: undefined, servername: 'kubernetes.internal' });
    expect((await load({ server: '10.0.0.1:6443' })).server).toBe('https://10.0.0.1:6443');
    expect((await load({ server: 'https://rancher.example/k8s/clusters/c-1/' })).server).toBe('https://rancher.example/k8s/clusters/c-1');
  });

  it('certificate-authority as a path relative to the kubeconfig, or absolute', async () => {
    const path = await write({ server, 'certificate-authority': 'certs/ca.pem' });
    await mkdir(join(path, '../certs'), { recursive: true });
    await writeFile(join(path, '../certs/ca.pem'), pki.ca.cert);
    expect((await loadClusterAuth({ kubeconfig: path })).tls.ca).toEqual(pki.ca.cert);
    expect((await load({ server, 'certificate-authority': pki.ca.certFile })).tls.ca).toEqual(pki.ca.cert);
  });

  it('refuses insecure-skip-tls-verify, saying what to give instead', async () => {
    const error = await rejection(load({ server, 'insecure-skip-tls-verify': true }));
    expect(error.message).toBe(
      `kubeconfig cluster main sets insecure-skip-tls-verify; controller-core always verifies the API server's certificate: give the cluster's certificate-authority(-data) instead (${currentPath()})`,
    );
  });

  it('proxy-url: used as written, whatever HTTPS_PROXY and NO_PROXY say; refused, without its credentials, when unusable', async () => {
    const env = { HTTPS_PROXY: 'http://env-proxy:3128', NO_PROXY: 'api.example' };
    const kubeconfig = await write({ server, 'proxy-url': 'https://user:s3cret@proxy.example:3129' });
    expect((await loadClusterAuth({ kubeconfig, env })).proxy?.href).toBe('https://user:s3cret@proxy.example:3129/');
    expect((await loadClusterAuth({ kubeconfig: await write({ server }), env: { HTTPS_PROXY: 'http://env-proxy:3128' } })).proxy?.href).toBe('http://env-proxy:3128/');
    expect((await loadClusterAuth({ kubeconfig: await write({ server }), env })).proxy).toBeUndefined();

    const socks = await rejection(load({ server, 'proxy-url': 'socks5://user:s3cret@proxy.example:1080' }));
    expect(socks.message).toBe(`cluster "main" in ${currentPath()}: proxy-url names a proxy with scheme "socks5"; controller-core reaches the API server through http:// or https:// proxies only`);
    const notUrl = await rejection(load({ server, 'proxy-url': 'http://user:s3cret@proxy.example:port' }));
    expect(notUrl.message).toBe(`cluster "main" in ${currentPath()} has proxy-url that is not a URL: write it as http://host:port (or https://)`);
  });

  it('refuses what it cannot honour, naming the entry and the file', async () => {
    await expect(load({ 'certificate-authority-data': base64(pki.ca.cert) })).rejects.toThrow(`cluster "main" in ${currentPath()} has no server`);
    await expect(load({ server: 'http://api.example:8080' })).rejects.toThrow(
      `cluster "main" in ${currentPath()} has server "http://api.example:8080": controller-core talks to the API server over https only`,
    );
    await expect(load({ server: 'https://[broken' })).rejects.toThrow(`cluster "main" in ${currentPath()} has server "https://[broken", which is not a URL`);
    await expect(load({ server: 6443 })).rejects.toThrow(`cluster "main" in ${currentPath()} has server that is not a string`);
  });

  it('refuses CA material that is missing, not base64, not PEM, or given twice', async () => {
    await expect(load({ server, 'certificate-authority': 'missing.pem' })).rejects.toThrow(
      `cannot read certificate-authority of cluster "main" in ${currentPath()} file ${join(currentPath(), '../missing.pem')}: ENOENT`,
    );
    await expect(load({ server, 'certificate-authority-data': pki.ca.cert.toString() })).rejects.toThrow(
      `certificate-authority of cluster "main" in ${currentPath()} is not base64 (kubeconfig -data fields hold base64-encoded PEM)`,
    );
    await expect(load({ server, 'certificate-authority-data': base64('hello') })).rejects.toThrow(
      `certificate-authority of cluster "main" in ${currentPath()} holds no PEM certificate`,
    );
    await expect(load({ server, 'certificate-authority': pki.ca.certFile, 'certificate-authority-data': base64(pki.ca.cert) })).rejects.toThrow(
      `cluster "main" in ${currentPath()} sets both certificate-authority and certificate-authority-data: keep one`,
    );
  });
});

describe('user', () => {
  it('client certificate and key as paths relative to the kubeconfig, or as data', async () => {
    const path = await write({ server }, { 'client-certificate': 'client.pem', 'client-key': 'keys/client-key.pem' });
    await mkdir(join(path, '../keys'), { recursive: true });
    await writeFile(join(path, '../client.pem'), pki.client.cert);
    await writeFile(join(path, '../keys/client-key.pem'), pki.client.key);
    const fromFiles = await loadClusterAuth({ kubeconfig: path });
    expect(fromFiles.tls).toEqual({ ca: undefined, cert: pki.client.cert, key: pki.client.key, servername: undefined });
    expect(await fromFiles.headers()).toEqual({});
    const fromData = await load({ server }, { 'client-certificate-data': base64(pki.client.cert), 'client-key-data': base64(pki.client.key) });
    expect(fromData.tls).toEqual({ ca: undefined, cert: pki.client.cert, key: pki.client.key, servername: undefined });
  });

  it('refuses a client certificate without its key, or with the wrong one', async () => {
    await expect(load({ server }, { 'client-certificate-data': base64(pki.client.cert) })).rejects.toThrow(
      `user "main" in ${currentPath()} has a client certificate but no client-key(-data)`,
    );
    await expect(load({ server }, { 'client-key': pki.client.keyFile })).rejects.toThrow(`user "main" in ${currentPath()} has a client key but no client-certificate(-data)`);
    await expect(load({ server }, { 'client-certificate': pki.client.certFile, 'client-key': pki.other.keyFile })).rejects.toThrow(
      `user "main" in ${currentPath()}: the client certificate and key do not belong together`,
    );
    const error = await rejection(load({ server }, { 'client-certificate': pki.client.certFile, 'client-key-data': base64('not a key') }));
    expect(error.message).toContain(`user "main" in ${currentPath()}: the client certificate or key is not usable PEM (`);
    expect(error.message).not.toContain('not a key');
    await expect(load({ server }, { 'client-certificate': pki.client.certFile, 'client-certificate-data': base64(pki.client.cert), 'client-key': pki.client.keyFile })).rejects.toThrow(
      `user "main" in ${currentPath()} sets both client-certificate and client-certificate-data: keep one`,
    );
  });

  it('token, and username/password as basic auth', async () => {
    expect(await (await load({ server }, { token: 'abc.def' })).headers()).toEqual({ authorization: 'Bearer abc.def' });
    expect(await (await load({ server }, { username: 'admin', password: 'pa:ss' })).headers()).toEqual({
      authorization: `Basic ${base64('admin:pa:ss')}`,
    });
  });

  it('refuses two authentication methods, and never quotes a secret', async () => {
    const error = await rejection(load({ server }, { token: 'the-token', username: 'admin', password: 'the-password' }));
    expect(error.message).toBe(`user "main" in ${currentPath()} has both a token (or tokenFile) and username/password: client-go allows only one authentication method`);
    expect(error.message).not.toMatch(/the-token|the-password/);
    await expect(load({ server }, { tokenFile: '/run/token', username: 'admin' })).rejects.toThrow('has both a token (or tokenFile) and username/password');
    const typed = await rejection(load({ server }, { password: 123456 }));
    expect(typed.message).toBe(`user "main" in ${currentPath()} has password that is not a string`);
  });

  it('tokenFile relative to the kubeconfig, re-read at most once a minute, and at once on refresh()', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const path = await write({ server }, { tokenFile: 'secrets/token' });
    const tokenPath = join(path, '../secrets/token');
    await mkdir(join(path, '../secrets'));
    await writeFile(tokenPath, 'first\n');
    const auth = await loadClusterAuth({ kubeconfig: path });
    expect(await auth.headers()).toEqual({ authorization: 'Bearer first' });
    await writeFile(tokenPath, 'second');
    expect(await auth.headers()).toEqual({ authorization: 'Bearer first' });
    vi.setSystemTime(Date.now() + 60_000);
    expect(await auth.headers()).toEqual({ authorization: 'Bearer second' });
    await writeFile(tokenPath, 'third');
    await auth.refresh();
    expect(await auth.headers()).toEqual({ authorization: 'Bearer third' });
  });

  it('tokenFile that cannot be read: an error, unless a token is given too (client-go sends it until the file is readable)', async () => {
    await expect(load({ server }, { tokenFile: 'nope' })).rejects.toThrow(
      `user "main" in ${currentPath()}: tokenFile: cannot read token file ${join(currentPath(), '../nope')}: ENOENT`,
    );
    const path = await write({ server }, { token: 'fallback', tokenFile: 'token' });
    const auth = await loadClusterAuth({ kubeconfig: path });
    expect(await auth.headers()).toEqual({ authorization: 'Bearer fallback' });
    await writeFile(join(path, '../token'), 'from-file');
    await auth.refresh();
    expect(await auth.headers()).toEqual({ authorization: 'Bearer from-file' });
    await rm(join(path, '../token'));
    const emptyPath = await write({ server }, { tokenFile: 'empty' });
    await writeFile(join(emptyPath, '../empty'), '\n');
    await expect(loadClusterAuth({ kubeconfig: emptyPath })).rejects.toThrow(`token file ${join(emptyPath, '../empty')} is empty`);
  });

  it('impersonation: user, uid, groups and extra as one header line per value', async () => {
    const auth = await load(
      { server },
      { token: 't', as: 'jane', 'as-uid': 'uid-1', 'as-groups': ['devs', 'ops'], 'as-user-extra': { scopes: ['read', 'write'], 'example.com/team': ['a b'] } },
    );
    expect(await auth.headers()).toEqual({
      authorization: 'Bearer t',
      'impersonate-user': 'jane',
      'impersonate-uid': 'uid-1',
      'impersonate-group': ['devs', 'ops'],
      'impersonate-extra-scopes': ['read', 'write'],
      'impersonate-extra-example.com%2fteam': ['a b'],
    });
  });

  it('refuses impersonation details without a user to impersonate', async () => {
    await expect(load({ server }, { 'as-groups': ['devs'] })).rejects.toThrow(
      `user "main" in ${currentPath()} sets as-uid, as-groups or as-user-extra without as: impersonation needs a user name`,
    );
    await expect(load({ server }, { as: 'jane', 'as-groups': 'devs' })).rejects.toThrow(`user "main" in ${currentPath()} has as-groups that is not a list of strings`);
  });

  it('no credentials at all: an anonymous user', async () => {
    const auth = await load({ server });
    expect(await auth.headers()).toEqual({});
    await auth.refresh();
    expect(await auth.headers()).toEqual({});
  });
});
