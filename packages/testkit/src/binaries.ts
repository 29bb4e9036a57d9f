import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The control-plane programs testkit runs. kubectl is built alongside so no machine depends on whatever kubectl it has. */
export const CONTROL_PLANE_BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kubectl'] as const;
export type ControlPlaneBinary = (typeof CONTROL_PLANE_BINARIES)[number];
export type BinaryPaths = Record<ControlPlaneBinary, string>;

const buildScript = fileURLToPath(new URL('../scripts/build-control-plane.sh', import.meta.url));

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds the control-plane binaries: first in `KUBEBUILDER_ASSETS` (the variable envtest users already set),
 * then in testkit's cache directory; when any is missing there, builds it from the Go module proxy once per
 * machine (scripts/build-control-plane.sh), failing with a message that says what to install.
 */
export async function resolveBinaries(env: NodeJS.ProcessEnv = process.env): Promise<BinaryPaths> {
  const assets = env.KUBEBUILDER_ASSETS;
  const found: Partial<BinaryPaths> = {};
  if (assets) {
    for (const name of CONTROL_PLANE_BINARIES) {
      const candidate = join(assets, name);
      if (await isExecutable(candidate)) found[name] = candidate;
    }
  }
  const missing = CONTROL_PLANE_BINARIES.filter((name) => !found[name]);
  if (missing.length === 0) return found as BinaryPaths;

  let cacheDir: string;
  try {
    // The script prints the cache directory as its last line, building whatever is missing first.
    const { stdout } = await run('bash', [buildScript], { env, maxBuffer: 16 * 1024 * 1024 });
    cacheDir = stdout.trim().split('\n').at(-1) ?? '';
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`testkit could not provide the control-plane binaries (${missing.join(', ')}):\n${stderr.trim()}`, { cause: error });
  }
  for (const name of missing) {
    const candidate = join(cacheDir, name);
    if (!(await isExecutable(candidate))) {
      throw new Error(`testkit: ${candidate} is missing after the build; run ${buildScript} by hand to see why`);
    }
    found[name] = candidate;
  }
  return found as BinaryPaths;
}
