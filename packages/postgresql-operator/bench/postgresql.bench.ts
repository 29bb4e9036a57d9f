// npm run bench -- postgresql [--scale 68]: a generated database of about 1 GB (pgbench scale 68) on a real
// PostgreSQL, then, on the same data, a backup and a restore through the operator's own pipeline against plain
// `pg_dump -Fc` and `pg_restore` of the same dump. The operator's backup streams pg_dump into the store (SHA-256 on the
// way, fsync + rename) while pg_restore decodes the same stream in full, then reads the stored dump back for its
// SHA-256 and writes the manifest; its restore checks the checksum, restores in a single transaction and runs ANALYZE.
// Prints figures; the last line is one JSON object.
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { TestCluster } from '@k8s-operators/testkit';
import { DirectoryBackupStore, forDatabase, pgClientConfig, restoreBackup, runBackup } from '../src/index.ts';
import { startPostgresPod } from '../test/postgres-pod.ts';

const { values } = parseArgs({ options: { scale: { type: 'string', default: '68' } } });
const scale = Number(values.scale);

async function postgresBin(): Promise<string> {
  const root = '/usr/lib/postgresql';
  const majors = (await readdir(root)).filter((m) => /^\d+$/.test(m)).sort((a, b) => Number(b) - Number(a));
  for (const major of majors) {
    const bin = join(root, major, 'bin');
    if (await access(join(bin, 'pg_dump')).then(() => true, () => false)) return bin;
  }
  throw new Error(`no pg_dump under ${root}`);
}

function timed(label: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${label} failed: ${stderr}`));
      else resolve((performance.now() - started) / 1000);
    });
  });
}

async function sql<T extends pg.QueryResultRow>(config: pg.ClientConfig, text: string): Promise<T[]> {
  const client = new pg.Client(config);
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const cluster = await TestCluster.start();
const work = await mkdtemp(join(tmpdir(), 'pg-bench-'));
try {
  const connection = await startPostgresPod(cluster, { name: 'bench', user: 'app', password: 'bench-password', database: 'appdb' });
  const bin = await postgresBin();
  const env = { PATH: process.env.PATH, PGPASSWORD: connection.password, PGHOST: connection.host, PGPORT: String(connection.port), PGUSER: connection.user };
  console.log(`generating data: pgbench -i -s ${String(scale)} ...`);
  const generateSeconds = await timed('pgbench -i', join(bin, 'pgbench'), ['-i', '-q', '-s', String(scale), 'appdb'], env);
  const [size] = await sql<{ bytes: string }>(pgClientConfig(connection), "SELECT pg_database_size('appdb') AS bytes");
  const databaseBytes = Number(size?.bytes ?? 0);
  console.log(`database: ${(databaseBytes / 2 ** 30).toFixed(2)} GiB, generated in ${generateSeconds.toFixed(1)} s`);

  const plainDump = join(work, 'plain.dump');
  const plainBackupSeconds = await timed('pg_dump', join(bin, 'pg_dump'), ['-Fc', '-d', 'appdb', '-f', plainDump], env);
  console.log(`plain pg_dump -Fc:              ${plainBackupSeconds.toFixed(1)} s, ${((await stat(plainDump)).size / 2 ** 20).toFixed(0)} MiB`);

  // The store refuses a missing directory (in a cluster that means the backup volume is not mounted).
  await mkdir(join(work, 'store'));
  const store = new DirectoryBackupStore(join(work, 'store'));
  let started = performance.now();
  const manifest = await runBackup({ store, key: { namespace: 'bench', postgresql: 'bench', backup: 'bench-1' }, trigger: 'OnDemand', connection });
  const operatorBackupSeconds = (performance.now() - started) / 1000;
  console.log(`operator backup (verified):     ${operatorBackupSeconds.toFixed(1)} s, ${(manifest.size / 2 ** 20).toFixed(0)} MiB`);

  await sql(pgClientConfig(connection), 'CREATE DATABASE plain_restore');
  const plainRestoreSeconds = await timed('pg_restore', join(bin, 'pg_restore'), ['--single-transaction', '--exit-on-error', '--no-owner', '--no-acl', '-d', 'plain_restore', plainDump], env)
    + await timed('analyze', join(bin, 'psql'), ['-d', 'plain_restore', '-c', 'ANALYZE'], env);
  console.log(`plain pg_restore -1 + ANALYZE:  ${plainRestoreSeconds.toFixed(1)} s`);

  await sql(pgClientConfig(connection), 'CREATE DATABASE operator_restore');
  started = performance.now();
  await restoreBackup({ store, backup: manifest, connection: forDatabase(connection, 'operator_restore'), role: 'app' });
  const operatorRestoreSeconds = (performance.now() - started) / 1000;
  console.log(`operator restore (checked):     ${operatorRestoreSeconds.toFixed(1)} s`);

  const count = async (database: string): Promise<number> => Number((await sql<{ n: string }>(pgClientConfig(forDatabase(connection, database)), 'SELECT count(*) AS n FROM pgbench_accounts'))[0]?.n ?? 0);
  const rows = { original: await count('appdb'), plain: await count('plain_restore'), operator: await count('operator_restore') };
  if (rows.plain !== rows.original || rows.operator !== rows.original) throw new Error(`restored row counts differ: ${JSON.stringify(rows)}`);

  const result = {
    benchmark: 'postgresql', scale, database_bytes: databaseBytes, dump_bytes: manifest.size, rows: rows.original,
    plain_backup_seconds: round(plainBackupSeconds), operator_backup_seconds: round(operatorBackupSeconds), backup_ratio: round(operatorBackupSeconds / plainBackupSeconds),
    plain_restore_seconds: round(plainRestoreSeconds), operator_restore_seconds: round(operatorRestoreSeconds), restore_ratio: round(operatorRestoreSeconds / plainRestoreSeconds),
    target_ratio: 1.1,
  };
  console.log(`ratios: backup ${String(result.backup_ratio)}, restore ${String(result.restore_ratio)} (target <= 1.10)`);
  console.log(JSON.stringify(result));
} finally {
  await cluster.stop();
  await rm(work, { recursive: true, force: true });
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
