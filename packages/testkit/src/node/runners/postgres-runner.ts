import { createHash } from 'node:crypto';
import { readdir, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess } from '../../managed-process.ts';
import { translatePath } from '../volumes.ts';
import { RunnerError, siblingFile, type ContainerRunner } from './runner.ts';

const POSTGRES_ROOT = process.env.TESTKIT_POSTGRES_ROOT ?? '/usr/lib/postgresql';

/** The server binaries for the image's major version, or the newest installed one (said in the Pod's log). */
async function serverBinaries(image: string): Promise<{ bin: string; major: string; note?: string }> {
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
  const newest = usable[0];
  if (!newest) throw new RunnerError(`no PostgreSQL server under ${POSTGRES_ROOT}: install one (Debian: apt-get install postgresql) or set TESTKIT_POSTGRES_ROOT`);
  const wanted = /:(\d+)/.exec(image)?.[1];
  if (wanted && usable.includes(wanted)) return { bin: join(POSTGRES_ROOT, wanted, 'bin'), major: wanted };
  const note = wanted ? `testkit: ${image} asks for PostgreSQL ${wanted}; this machine has ${usable.join(', ')}; running ${newest}` : undefined;
  return { bin: join(POSTGRES_ROOT, newest, 'bin'), major: newest, ...(note ? { note } : {}) };
}

/** A real PostgreSQL server honouring the official image's environment contract, on the Pod's address. */
export const postgresRunner: ContainerRunner = async (ctx) => {
  const image = ctx.container.image ?? 'postgres';
  const { bin, note } = await serverBinaries(image);
  const port = ctx.container.ports?.find((p) => p.containerPort)?.containerPort ?? 5432;
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
