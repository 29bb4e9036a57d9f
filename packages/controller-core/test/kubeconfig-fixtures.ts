import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { stringify } from 'yaml';

const run = promisify(execFile);

/** A fresh directory for one test's kubeconfigs, certificates and plugins. */
export async function temporaryDirectory(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Writes a kubeconfig (any object, as YAML) and returns its path; directories are created. */
export async function writeKubeconfig(path: string, config: object): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, stringify(config), { mode: 0o600 });
  return path;
}

/** A kubeconfig of one cluster, one user and one context, `current-context` set to it. */
export function singleContext(cluster: object, user: object, name = 'main'): object {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  };
}

export interface KeyPair {
  cert: Buffer;
  key: Buffer;
  certFile: string;
  keyFile: string;
}

/** A self-signed certificate and its key, made by openssl; good as a CA and as a client certificate. */
export async function createKeyPair(dir: string, name: string): Promise<KeyPair> {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}-key.pem`);
  await mkdir(dir, { recursive: true });
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', `/CN=${name}`]);
  return { cert: await readFile(certFile), key: await readFile(keyFile), certFile, keyFile };
}

/** A test file's temporary directory and, under its `pki/`, key pairs named as asked. */
export type TestPki<Name extends string> = { readonly dir: string } & Readonly<Record<Name, KeyPair>>;

/**
 * Makes the directory and the key pairs `names` in beforeAll and removes the directory in afterAll, for the tests of
 * the calling file or describe block; read the fields inside tests and hooks, once beforeAll has run.
 */
export function useTestPki<Name extends string>(...names: Name[]): TestPki<Name> {
  const pki: Record<string, unknown> = {};
  let directory: Awaited<ReturnType<typeof temporaryDirectory>> | undefined;
  beforeAll(async () => {
    directory = await temporaryDirectory();
    pki.dir = directory.path;
    for (const name of names) pki[name] = await createKeyPair(join(directory.path, 'pki'), name);
  });
  afterAll(async () => {
    await directory?.remove();
  });
  return pki as TestPki<Name>;
}

export const base64 = (data: Buffer | string): string => Buffer.from(data).toString('base64');

/** The error a promise rejects with, to assert on its whole message; resolving fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error('expected the promise to reject');
}
