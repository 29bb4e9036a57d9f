// A command run to its end, for tools the tests drive (helm, kubectl of a release): its exit code and both outputs,
// never a throw, so the caller decides what a failure means and says it in the user's terms.
import { execFile } from 'node:child_process';

export interface CommandResult { code: number; stdout: string; stderr: string }

/** Runs `command` with this process's environment plus `env`, `input` on its stdin. */
export function runCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(command, [...args], { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}
