import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { isProcessRunning } from '../../process-running.ts';

const run = promisify(execFile);

/** Labels on every container the local node starts, so that containers left by a killed test run can be found. */
export const TESTKIT_LABEL = 'io.k8s-operators.testkit';
export const OWNER_PID_LABEL = `${TESTKIT_LABEL}.owner-pid`;

let available: Promise<boolean> | undefined;

/** Whether a Docker engine answers here (asked once per process). */
export function engineAvailable(): Promise<boolean> {
  available ??= run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 10_000 }).then(() => true, () => false);
  return available;
}

/** The image's ID (sha256:...) if the engine holds it; the local node never pulls: there may be no registry. */
export async function localImageId(image: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('docker', ['image', 'inspect', '--format', '{{.Id}}', image], { timeout: 10_000 });
    return stdout.trim();
  } catch {
    return undefined;
  }
}

/** Removes a container whether it runs or not; a container that is already gone is fine. */
export async function removeContainer(name: string): Promise<void> {
  await run('docker', ['rm', '--force', '--volumes', name], { timeout: 30_000 }).catch(() => undefined);
}

/**
 * Removes the containers of local nodes whose process is gone (a test run killed by SIGKILL cannot stop its
 * containers; the next node start does).
 */
export async function removeOrphanedContainers(): Promise<void> {
  const { stdout } = await run('docker', ['ps', '--all', '--filter', `label=${TESTKIT_LABEL}`, '--format', `{{.ID}} {{.Label "${OWNER_PID_LABEL}"}}`], { timeout: 10_000 });
  const orphans = stdout.split('\n').map((line) => line.split(' ')).filter(([id, pid]) => id && !isProcessRunning(Number(pid))).map(([id]) => id ?? '');
  await Promise.all(orphans.map(removeContainer));
}

/** The user an image runs as when the Pod does not say (its USER), as a string: "", "65532", "65532:65532", "root". */
export async function imageUser(image: string): Promise<string> {
  const { stdout } = await run('docker', ['image', 'inspect', '--format', '{{.Config.User}}', image], { timeout: 10_000 });
  return stdout.trim();
}
