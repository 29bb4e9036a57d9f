import { spawn } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RunnerError } from './runner.ts';

/** The script that builds (once per machine) and names the stand-in image of a PostgreSQL major. */
export const STAND_IN_SCRIPT = 'tools/images/postgres-stand-in.sh';
/** The script's exit status when no Debian suite carries the major: there is no stand-in to run. */
const NO_STAND_IN = 3;

export type StandIn = { image: string } | { unavailable: string };

const lookups = new Map<string, Promise<StandIn>>();

/**
 * The local stand-in image of PostgreSQL `major` (kind/stand-ins/postgres.Dockerfile on the Debian suite that carries
 * it), built by the script the first time a process asks for it. The build's progress lines (one every 15 s) go to
 * the asking container's log and to this process's stderr, so a first Pod that waits minutes for its image says why.
 * Asked once per process and major: a failed build is not retried every second by the Pod's restarts; its error says
 * how to run it by hand.
 */
export function postgresStandIn(major: string, workspaceRoot: string, logFile: string): Promise<StandIn> {
  let lookup = lookups.get(major);
  if (lookup === undefined) {
    lookup = runStandInScript(major, workspaceRoot, logFile);
    lookups.set(major, lookup);
  }
  return lookup;
}

async function runStandInScript(major: string, workspaceRoot: string, logFile: string): Promise<StandIn> {
  const script = join(workspaceRoot, STAND_IN_SCRIPT);
  const child = spawn('bash', [script, major], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const said: string[] = [];
  const lines = createInterface({ input: child.stderr });
  // Written in order: each line is appended once the one before it is.
  let written = Promise.resolve();
  lines.on('line', (line) => {
    said.push(line);
    process.stderr.write(`testkit: ${line}\n`);
    written = written.then(() => appendFile(logFile, `testkit: ${line}\n`)).catch(() => undefined);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  await written;
  if (code === 0) return { image: stdout.trim().split('\n').at(-1) ?? '' };
  const why = said.slice(-20).join('\n');
  // The script's one line, said as part of the runner's note: "no Debian suite carries PostgreSQL 16 (...)".
  if (code === NO_STAND_IN) return { unavailable: (said.at(-1) ?? '').replace(/^images: /, '') };
  throw new RunnerError(`the stand-in image for PostgreSQL ${major} could not be built (bash ${STAND_IN_SCRIPT} ${major} exited ${code ?? 'on a signal'}; run it to retry):\n${why}`);
}
