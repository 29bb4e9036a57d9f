import { chmod, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A container's termination message, as the kubelet keeps it: a file, empty and writable by any user, mounted at the
 * container's `terminationMessagePath`; whatever the container wrote there when it ended becomes
 * `state.terminated.message`, cut at 4096 bytes.
 */

export const DEFAULT_TERMINATION_MESSAGE_PATH = '/dev/termination-log';
const MAX_TERMINATION_MESSAGE_BYTES = 4096;

/** Creates (or empties, for a restart) the file behind the container's termination message; returns its path. */
export async function emptyTerminationLog(containerDir: string): Promise<string> {
  const file = join(containerDir, 'termination-log');
  await writeFile(file, '');
  // Whatever user the container runs as writes it, as with the kubelet's file.
  await chmod(file, 0o666);
  return file;
}

/** What the container wrote, or undefined when it wrote nothing. */
export async function readTerminationMessage(file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined;
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(MAX_TERMINATION_MESSAGE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return bytesRead === 0 ? undefined : buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
