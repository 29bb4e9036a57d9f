import { execFile, spawn } from 'node:child_process';
import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from './free-port.ts';
import { waitFor } from './wait-for.ts';

const run = promisify(execFile);

/** How `npm run images` tags the images by default, as deploy/ names them. */
export const IMAGE_REGISTRY = 'ghcr.io/k8s-operators';
export const IMAGE_TAG = '0.1.0';

export interface ProjectImage {
  name: string;
  /** Whether the runtime base is distroless: no shell, no package manager. */
  distroless: boolean;
  /** The endpoint that answers 200 once the program is up: /readyz for operators (their informers synced). */
  healthPath: string;
  /** CRDs an operator watches (a kustomize directory): it is ready only once its informers synced. */
  crds?: string;
  /** Flags for a standalone start: a kubeconfig at /kubeconfig, the health endpoint on 127.0.0.1:<health>. */
  args(ports: { health: number; metrics: number }): string[];
  env?: Readonly<Record<string, string>>;
}

const operatorArgs = ({ health, metrics }: { health: number; metrics: number }): string[] =>
  ['--kubeconfig=/kubeconfig', '--leader-elect=false', `--health-probe-bind-address=127.0.0.1:${health}`, `--metrics-bind-address=127.0.0.1:${metrics}`];

/** The images `npm run images` builds, and how each starts on its own for an image check or a benchmark. */
export const PROJECT_IMAGES: readonly ProjectImage[] = [
  { name: 'maintpage-operator', distroless: true, crds: 'deploy/maintpage-operator/crd', healthPath: '/readyz',
    args: (p) => [...operatorArgs(p), `--page-server-image=${IMAGE_REGISTRY}/maintpage-page-server:${IMAGE_TAG}`] },
  { name: 'maintpage-page-server', distroless: true, healthPath: '/healthz', args: ({ health }) => ['--bind-address=127.0.0.1', `--port=${health}`] },
  { name: 'postgresql-operator', distroless: false, crds: 'deploy/postgresql-operator/crd', healthPath: '/readyz',
    args: (p) => [...operatorArgs(p), '--backup-store-service=default/backup-store'] },
  { name: 'nutanix-ahvvm-operator', distroless: true, crds: 'deploy/nutanix-ahvvm-operator/crd', healthPath: '/readyz', args: operatorArgs,
    // Prism Central is called for AhvVms only; none exist in a standalone start.
    env: { PRISM_HOST: '127.0.0.1', PRISM_PORT: '9440', PRISM_USER: 'admin', PRISM_PASS: 'unused', PRISM_CLUSTERUUID: '00000000-0000-0000-0000-000000000001' } },
];

export const imageRef = (name: string): string => `${IMAGE_REGISTRY}/${name}:${IMAGE_TAG}`;

export interface StartedImage {
  /** Milliseconds from `docker run` to the first 200 from the health endpoint. */
  readyMs: number;
  /** The program's resident memory once it answered, in bytes. */
  rssBytes(): Promise<number>;
  /** Everything the program printed so far. */
  output(): string;
  /** `docker stop` (SIGTERM, then SIGKILL after 10 s); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts an image as the manifests run it — read-only root, UID 65532, no capabilities, no privilege escalation, on
 * the host network — and waits for its health endpoint. Rejects with the program's output if it exits first.
 */
export async function startImage(image: ProjectImage, kubeconfig: string, timeoutMs = 60_000): Promise<StartedImage> {
  const ref = imageRef(image.name);
  const [health = 0, metrics = 0] = await freePorts(2);
  const ports = { health, metrics };
  const name = `image-check-${image.name}-${process.pid}-${ports.health}`;
  // Readable by the image's user, as a mounted Secret is (an admin kubeconfig is the test's own, mode 0600).
  const mounted = join(await mkdtemp(join(tmpdir(), 'image-kubeconfig-')), 'kubeconfig');
  await copyFile(kubeconfig, mounted);
  await chmod(mounted, 0o644);
  const started = Date.now();
  const container = spawn('docker', ['run', '--rm', '--name', name, '--network', 'host', '--read-only', '--user', '65532', '--cap-drop', 'ALL',
    '--security-opt', 'no-new-privileges', '--mount', `type=bind,source=${mounted},target=/kubeconfig,readonly`,
    ...Object.entries(image.env ?? {}).flatMap(([k, v]) => ['--env', `${k}=${v}`]), ref, ...image.args(ports)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  container.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  container.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => container.once('exit', resolve));
  const stop = async (): Promise<number | null> => {
    await run('docker', ['stop', '--time', '10', name]).catch(() => undefined);
    const code = await exited;
    await rm(dirname(mounted), { recursive: true, force: true });
    return code;
  };
  const exitedEarly = exited.then((code) => { throw new Error(`${ref} exited with ${code} before it answered ${image.healthPath}:\n${output}`); });
  exitedEarly.catch(() => undefined);
  try {
    await Promise.race([exitedEarly, waitFor(async () => {
      const response = await fetch(`http://127.0.0.1:${ports.health}${image.healthPath}`).catch(() => undefined);
      return response?.status === 200;
    }, { what: `${ref} to answer ${image.healthPath}`, timeoutMs, intervalMs: 50 })]);
  } catch (error) {
    await stop();
    throw error;
  }
  const readyMs = Date.now() - started;
  return {
    readyMs,
    // `docker top` runs ps on the host for the container's processes; its first line is the header.
    rssBytes: async () => (await run('docker', ['top', name, '-o', 'pid,rss'])).stdout.trim().split('\n').slice(1)
      .reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[1]) * 1024, 0),
    output: () => output,
    stop,
  };
}
