// The backup store service as its own process (the image's entry point with `backup-store`) over a directory, with the
// certificate the operator keeps in its Secret: for the service's own test and for the benchmark's backup Jobs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Resources, type KubeClient } from '@k8s-operators/controller-core';
import { freePort, waitFor } from '@k8s-operators/testkit';
import { ensureStoreCertificate } from '../src/store-service/store-certificate.ts';
import { storeServerName, type StoreServiceRef } from '../src/store-service/store-endpoint.ts';

const ENTRY = fileURLToPath(new URL('../src/main.ts', import.meta.url));

export interface StoreProcessOptions {
  /** Makes the certificate Secret, as the operator does. */
  admin: KubeClient;
  service: StoreServiceRef;
  backupDir: string;
  /** A directory for the mounted certificate. */
  workDir: string;
  /** The kubeconfig the service checks tokens with. */
  kubeconfig: string;
  /** `NAMESPACE:NAME` of the caller allowed everything. */
  operatorServiceAccount: string;
}

export interface StoreProcess {
  /** `https://127.0.0.1:<port>`, the certificate to trust, and the name to check it for. */
  endpoint: { url: string; serverName: string; ca: string };
  port: number;
  child: ChildProcess;
  /** What it printed so far. */
  logs: () => string;
}

export async function startStoreProcess(options: StoreProcessOptions): Promise<StoreProcess> {
  const { admin, service } = options;
  const ca = await ensureStoreCertificate(admin, service);
  const secret = await admin.get(Resources.Secret, { namespace: service.namespace, name: service.secretName });
  // Mounted as a kubernetes.io/tls Secret would be.
  const tls = join(options.workDir, 'tls');
  await mkdir(tls, { recursive: true });
  for (const file of ['tls.crt', 'tls.key']) await writeFile(join(tls, file), Buffer.from(secret?.data?.[file] ?? '', 'base64'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--conditions=source', ENTRY, 'backup-store', `--backup-dir=${options.backupDir}`, `--bind-address=127.0.0.1:${port}`,
    `--cert-dir=${tls}`, `--operator-service-account=${options.operatorServiceAccount}`, `--kubeconfig=${options.kubeconfig}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const logs = (): string => output.join('');
  await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`the backup store service exited with ${String(child.exitCode)}: ${logs()}`);
    return logs().includes('backup store serving') || undefined;
  }, { what: 'the backup store service to listen', timeoutMs: 60_000 });
  return { endpoint: { url: `https://127.0.0.1:${port}`, serverName: storeServerName(service), ca }, port, child, logs };
}
