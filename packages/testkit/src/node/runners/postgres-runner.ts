import { createHash } from 'node:crypto';
import { readdir, access, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess } from '../../managed-process.ts';
import { translatePath } from '../volumes.ts';
import { engineAvailable } from './container-engine.ts';
import { runInEngine } from './engine-runner.ts';
import { postgresStandIn, type StandIn } from './postgres-stand-in.ts';
import { projectImageMode } from './project-image-runner.ts';
import { RunnerError, siblingFile, type ContainerRunner, type RunnerContext, type StartedContainer } from './runner.ts';

const POSTGRES_ROOT = process.env.TESTKIT_POSTGRES_ROOT ?? '/usr/lib/postgresql';

/** The majors whose server this machine has (/usr/lib/postgresql/<major>/bin/postgres), newest first. */
async function installedMajors(): Promise<string[]> {
  let majors: string[];
  try {
    majors = (await readdir(POSTGRES_ROOT)).filter((m) => /^\d+$/.test(m)).sort((a, b) => Number(b) - Number(a));
  } catch {
    majors = [];
  }
  const usable: string[] = [];
  for (const m of majors) {
    try {
      await access(join(POSTGRES_ROOT, m, 'bin', 'postgres'));
      usable.push(m);
    } catch { /* a client-only install */ }
  }
  return usable;
}

/**
 * The image that stands in for a major this machine lacks, run through the container engine, or why there is none:
 * the engine is not used (TESTKIT_IMAGES=process) or does not answer, or no Debian suite carries the major.
 */
async function standInFor(major: string, ctx: RunnerContext): Promise<StandIn> {
  if (projectImageMode() === 'process') return { unavailable: 'TESTKIT_IMAGES=process runs no container' };
  if (!(await engineAvailable())) return { unavailable: 'no container engine answers (docker info) to run its stand-in image' };
  return postgresStandIn(major, ctx.workspaceRoot, ctx.logFile);
}

/**
 * The stand-in image of the Pod's major run by the container engine, as the engine runner runs any image, told to
 * listen on the Pod's address (host network: its own loopback address) rather than on every address of the host.
 * Exec probes run on this machine, so pg_isready (any major's answers) reaches the server over TCP.
 */
async function runStandIn(ctx: RunnerContext, major: string, image: string, port: number, installed: readonly string[]): Promise<StartedContainer> {
  const has = installed.length > 0 ? `it has ${installed.join(', ')}` : 'it has none';
  await appendFile(ctx.logFile, `testkit: ${ctx.container.image ?? ''}: this machine has no PostgreSQL ${major} server (${has}); running the stand-in image ${image} through the container engine\n`);
  const started = await runInEngine({ ...ctx, containerEnv: { ...ctx.containerEnv, TESTKIT_LISTEN: ctx.podIP, TESTKIT_PORT: String(port) } }, image);
  const client = installed[0] === undefined ? [] : [join(POSTGRES_ROOT, installed[0], 'bin')];
  return { ...started, probeEnv: { PGHOST: ctx.podIP, PGPORT: String(port), PATH: [...client, process.env.PATH ?? ''].join(':') } };
}

/**
 * A real PostgreSQL server honouring the official image's environment contract, on the Pod's address: this machine's
 * server of the image's major as a process; a major it lacks from that major's stand-in image in the container engine
 * (tools/images/postgres-stand-in.sh, built once per machine); only where neither exists, the newest installed server,
 * said in the Pod's log.
 */
export const postgresRunner: ContainerRunner = async (ctx) => {
  const image = ctx.container.image ?? 'postgres';
  const port = ctx.container.ports?.find((p) => p.containerPort)?.containerPort ?? 5432;
  const installed = await installedMajors();
  const wanted = /:(\d+)/.exec(image)?.[1];
  const major = wanted !== undefined && installed.includes(wanted) ? wanted : installed[0];
  let note: string | undefined;
  if (wanted !== undefined && major !== wanted) {
    const standIn = await standInFor(wanted, ctx);
    if ('image' in standIn) return runStandIn(ctx, wanted, standIn.image, port, installed);
    note = `testkit: ${image} asks for PostgreSQL ${wanted}, which this machine lacks (it has ${installed.join(', ') || 'none'}), and ${standIn.unavailable}`;
  }
  if (major === undefined) {
    throw new RunnerError(`no PostgreSQL server under ${POSTGRES_ROOT}: install one (Debian: apt-get install postgresql) or set TESTKIT_POSTGRES_ROOT${note === undefined ? '' : ` (${note})`}`);
  }
  if (note !== undefined) note += `; running ${major}`;
  const bin = join(POSTGRES_ROOT, major, 'bin');
  const rootfs = join(ctx.containerDir, 'rootfs');
  const pgdata = translatePath(ctx.containerEnv.PGDATA ?? '/var/lib/postgresql/data', ctx.mounts, rootfs);
  // Unix socket paths are limited to 107 bytes, too short for a path below the Pod's directory.
  const socketDir = join(tmpdir(), `testkit-pg-${createHash('sha256').update(ctx.containerDir).digest('hex').slice(0, 12)}`);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, ...ctx.env, PGDATA: pgdata,
    TESTKIT_PG_BIN: bin, TESTKIT_LISTEN: ctx.podIP, TESTKIT_PORT: String(port), TESTKIT_SOCKET_DIR: socketDir,
  };
  const process_ = ManagedProcess.start({
    name: ctx.container.name, command: 'bash', args: ['-c', `${note ? `echo ${JSON.stringify(note)}; ` : ''}exec "$0"`, siblingFile(import.meta.url, 'postgres-entrypoint', '.sh')],
    env, cwd: ctx.containerDir, logFile: ctx.logFile,
  });
  return {
    process: process_,
    probeEnv: { PGHOST: socketDir, PGPORT: String(port), PATH: `${bin}:${process.env.PATH ?? ''}` },
    hostPaths: [socketDir],
  };
};
