import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProvisionedTool } from './provisioned-tools.ts';

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

export interface ResolveOptions {
  /**
   * Receives each line the provisioning script prints on stderr (which step, which binary, the elapsed time every
   * 15 s), as it is printed. Default: written to this process's stderr at once, so a first run is never silent.
   */
  progress?: (line: string) => void;
}

/** Runs the provisioning script, passing its stderr on line by line; resolves with its stdout and all of its stderr. */
function runScript(env: NodeJS.ProcessEnv, progress: (line: string) => void): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [buildScript], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) progress(line);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (pending) progress(pending);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
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
 * scripts/build-control-plane.sh puts whatever is missing once per machine: downloaded where a digest is pinned for
 * this platform and the download answers, else built from the Go module proxy. Its progress is passed on as it
 * happens; failures carry a message that says what to do. For entry points (the cluster CLI, the demo), never tests.
 */
export async function provideBinaries(env: NodeJS.ProcessEnv = process.env, options: ResolveOptions = {}): Promise<BinaryPaths> {
  const found = await fromAssets(env);
  const missing = CONTROL_PLANE_BINARIES.filter((name) => !found[name]);
  if (missing.length === 0) return found as BinaryPaths;

  const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  // The script prints the cache directory as its last line, providing whatever is missing first.
  const { code, stdout, stderr } = await runScript(env, progress);
  if (code !== 0) {
    throw new Error(`testkit could not provide the control-plane binaries (${missing.join(', ')}):\n${stderr.trim().split('\n').slice(-40).join('\n')}`);
  }
  const cacheDir = stdout.trim().split('\n').at(-1) ?? '';
  for (const name of missing) {
    const candidate = join(cacheDir, name);
    if (!(await isExecutable(candidate))) {
      throw new Error(`testkit: ${candidate} is missing after the build; run ${buildScript} by hand to see why`);
    }
    found[name] = candidate;
  }
  return found as BinaryPaths;
}
