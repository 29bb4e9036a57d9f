// distribution's registry (provisioned, pinned as kind's local registry is) on a loopback port with its storage in a
// scratch directory: where the signing tests push, sign and pull. Docker and cosign both speak plain HTTP to
// 127.0.0.1 without being told to, as they do to any loopback registry.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProvisionedTool, freePort, waitFor } from '@k8s-operators/testkit';

export interface LocalRegistry {
  /** host:port */
  host: string;
  /** The digest the registry serves for a tag (or a digest), as Docker-Content-Digest says; undefined when unknown. */
  digestOf(repository: string, reference: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

// Every manifest type an image (or index) may have been pushed as.
const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json', 'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json', 'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const binary = await findProvisionedTool('registry');
  const dir = await mkdtemp(join(tmpdir(), 'release-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${String(port)}`;
  await writeFile(join(dir, 'config.yml'), [
    'version: 0.1',
    'log: {level: warn}',
    `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}, delete: {enabled: true}}`,
    `http: {addr: "${host}"}`,
    '',
  ].join('\n'));
  let output = '';
  const child: ChildProcess = spawn(binary, ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`the registry exited (${String(child.exitCode)}):\n${output}`);
    return (await fetch(`http://${host}/v2/`).catch(() => undefined))?.status === 200;
  }, { timeoutMs: 30_000, what: `the registry on ${host}` });
  return {
    host,
    digestOf: async (repository, reference) => {
      const answer = await fetch(`http://${host}/v2/${repository}/manifests/${reference}`, { method: 'HEAD', headers: { accept: MANIFEST_TYPES } });
      return answer.status === 200 ? answer.headers.get('docker-content-digest') ?? undefined : undefined;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => { if (child.exitCode !== null) resolve(undefined); else child.once('exit', resolve); });
      await rm(dir, { recursive: true, force: true });
    },
  };
}
