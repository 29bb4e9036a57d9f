import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { provision } from './provision.ts';
import { findProvisionedTool } from './provisioned-tools.ts';

/** The control-plane programs testkit runs. kubectl is built alongside so no machine depends on whatever kubectl it has. */
export const CONTROL_PLANE_BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kubectl'] as const;
export type ControlPlaneBinary = (typeof CONTROL_PLANE_BINARIES)[number];
export type BinaryPaths = Record<ControlPlaneBinary, string>;

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface ResolveOptions {
  /**
   * Receives each line the provisioning script prints on stderr (which step, which binary, the elapsed time every
   * 15 s), as it is printed. Default: written to this process's stderr at once, so a first run is never silent.
   */
  progress?: (line: string) => void;
}

/** The binaries `KUBEBUILDER_ASSETS` (the variable envtest users already set) holds, if it is set. */
async function fromAssets(env: NodeJS.ProcessEnv): Promise<Partial<BinaryPaths>> {
  const found: Partial<BinaryPaths> = {};
  const assets = env.KUBEBUILDER_ASSETS;
  if (!assets) return found;
  for (const name of CONTROL_PLANE_BINARIES) {
    const candidate = join(assets, name);
    if (await isExecutable(candidate)) found[name] = candidate;
  }
  return found;
}

/**
 * Finds the control-plane binaries, building nothing: first in `KUBEBUILDER_ASSETS`, then in testkit's cache
 * directory, where `npm run provision` (or `provideBinaries`) put them. What tests and clusters call: a missing binary
 * fails at once, naming the command that builds it.
 */
export async function findBinaries(env: NodeJS.ProcessEnv = process.env): Promise<BinaryPaths> {
  const found = await fromAssets(env);
  const missing = CONTROL_PLANE_BINARIES.filter((name) => !found[name]);
  if (missing.length === 0) return found as BinaryPaths;
  const cacheDir = await findProvisionedTool('control-plane', env);
  for (const name of missing) found[name] = join(cacheDir, name);
  return found as BinaryPaths;
}

/**
 * Provides the control-plane binaries: those in `KUBEBUILDER_ASSETS`, else testkit's cache directory, where
 * `npm run provision`'s control-plane step puts whatever is missing once per machine: downloaded where a digest is
 * pinned for this platform and the download answers, else built from the Go module proxy. Its progress is passed on as
 * it happens; a failure carries the end of the build's output, which says what to do. For entry points (the cluster
 * CLI, the demo), never tests: they only find.
 */
export async function provideBinaries(env: NodeJS.ProcessEnv = process.env, options: ResolveOptions = {}): Promise<BinaryPaths> {
  const found = await fromAssets(env);
  if (CONTROL_PLANE_BINARIES.every((name) => found[name])) return found as BinaryPaths;
  const { failures } = await provision({ tools: ['control-plane'], env, progress: options.progress });
  const failure = failures[0];
  if (failure !== undefined) {
    throw new Error(`testkit could not provide the control-plane binaries (${failure.script} exited ${failure.code}):\n${failure.tail.join('\n')}`);
  }
  return findBinaries(env);
}
