// npm run bench -- postgresql [--scale 68] [--rounds 9] [--store volume|s3] [--job] [--encrypt] [--drill]: a generated database of about 1 GB (pgbench scale 68) on a
// real PostgreSQL, then, on the same data, backups and restores through the operator's own pipeline against plain
// `pg_dump -Fc` and `pg_restore` of the same dump. The operator's backup streams pg_dump into the store (SHA-256 on the
// way, fsync + rename) while pg_restore decodes the same stream in full, then reads the stored dump back for its
// SHA-256 and writes the manifest; its restore checks the checksum, restores in a single transaction and runs ANALYZE.
//
// Each round times all four, plain and operator in alternating order. On a shared machine the same pg_dump takes
// 2.3 s in one minute and 3.5 s in the next, far more than the difference being measured, so each ratio is taken within
// a round, between two runs seconds apart, and the ratio reported is the median of the rounds' ratios. The medians of
// the times and their ratio are printed too: that ratio compares runs from different minutes and moves more (over nine
// 9-round runs of one build, 1.04-1.13 against 1.02-1.10). Nine rounds, not five, for the same reason. The first round
// also warms the operator's process (JIT, the pg_dump/pg_restore lookup), as a long-running operator is.
// --store s3 keeps the operator's backups in a real S3-compatible store (SeaweedFS, started here) instead of a
// directory; --job also runs each round's operator backup as the Job the operator creates (the operator image's
// backup-job entry point on the cluster's node; with the volume, writing through the backup store service, started
// here as its own process over the same directory), and reports the Job's time in parts (bench/backup-job-run.ts): its
// backup against plain pg_dump, and the Job's start overhead, everything else from the create to the Job's Complete.
// --encrypt also takes each round's operator backup encrypted with age (spec.backup.encryption) right before or after
// the plain one, and reports their ratio: what encryption costs against the backup's own time.
// --drill also runs, each round, a restore drill (spec.backup.verify) of that round's operator backup as the operator
// does: a scratch PostgreSQL pod started until it is ready, the backup restored into it and read back (restoreAndRead's
// two steps, timed apart: restoreBackup, then readRestoredDatabase counting every table's rows), the pod deleted; its
// time against the operator restore's.
// Prints figures; the last line is one JSON object.
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { KubeClient } from '@k8s-operators/controller-core';
import { cpuSecondsOf, startSeaweedFs, TestCluster, type RunningSeaweedFs } from '@k8s-operators/testkit';
import { resolveS3Store } from '../src/api/resolved-s3-store.ts';
import { openS3BackupStore } from '../src/stores/s3-store-options.ts';
import { createS3Client } from '../src/stores/s3-store.ts';
import { DirectoryBackupStore, forDatabase, pgClientConfig, restoreBackup, runBackup, type BackupManifest, type BackupStore } from '../src/index.ts';
import { startStoreProcess, type StoreProcess } from '../test/backup-store-process.ts';
import { startPostgresPod } from '../test/postgres-pod.ts';
import { runBackupJob, type BenchJobTarget, type JobTiming } from './backup-job-run.ts';
import { parseAgeRecipients } from '../src/encryption/age-keys.ts';
import { newKeyPair } from '../test/age-streams.ts';
import { readRestoredDatabase } from '../src/restore/restore-check.ts';
import { plainDumpToBucket } from './plain-to-bucket.ts';

const { values } = parseArgs({
  options: { scale: { type: 'string', default: '68' }, rounds: { type: 'string', default: '9' }, store: { type: 'string', default: 'volume' }, job: { type: 'boolean', default: false }, encrypt: { type: 'boolean', default: false }, drill: { type: 'boolean', default: false } },
});
const scale = Number(values.scale);
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, not ${values.rounds}`);
const storeKind = values.store;
if (storeKind !== 'volume' && storeKind !== 's3') throw new Error(`--store must be volume or s3, not ${storeKind}`);

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
let seaweed: RunningSeaweedFs | undefined;
let admin: KubeClient | undefined;
let storeService: StoreProcess | undefined;
try {
  const connection = await startPostgresPod(cluster, { name: 'bench', user: 'app', password: 'bench-password', database: 'appdb' });
  const bin = await postgresBin();
  const env = { PATH: process.env.PATH, PGPASSWORD: connection.password, PGHOST: connection.host, PGPORT: String(connection.port), PGUSER: connection.user };
  console.log(`generating data: pgbench -i -s ${String(scale)} ...`);
  const generateSeconds = await timed('pgbench -i', join(bin, 'pgbench'), ['-i', '-q', '-s', String(scale), 'appdb'], env);
  const [size] = await sql<{ bytes: string }>(pgClientConfig(connection), "SELECT pg_database_size('appdb') AS bytes");
  const databaseBytes = Number(size?.bytes ?? 0);
  console.log(`database: ${(databaseBytes / 2 ** 30).toFixed(2)} GiB, generated in ${generateSeconds.toFixed(1)} s`);

  let store: BackupStore;
  let jobTarget: BenchJobTarget | undefined;
  if (storeKind === 's3') {
    seaweed = await startSeaweedFs({ bucket: 'bench' });
    const { credentials } = seaweed;
    store = await openS3BackupStore({ bucket: 'bench', endpoint: seaweed.endpoint, region: seaweed.region, forcePathStyle: true, credentials });
    // A fresh SeaweedFS allocates its volumes on the first write (about 8 s here): a store in use has done that long ago.
    await seaweed.request({ method: 'PUT', path: '/bench/warm-up', body: Buffer.alloc(1024 * 1024) });
    await seaweed.request({ method: 'DELETE', path: '/bench/warm-up' });
    if (values.job) {
      admin = await KubeClient.load({ kubeconfig: cluster.adminKubeconfig });
      await cluster.kubectl(['create', 'secret', 'generic', 'bench-s3', `--from-literal=accessKeyId=${credentials.accessKeyId}`, `--from-literal=secretAccessKey=${credentials.secretAccessKey}`]);
      const s3 = resolveS3Store({ bucket: 'bench', endpoint: seaweed.endpoint, region: seaweed.region, forcePathStyle: true, credentialsSecret: 'bench-s3' });
      jobTarget = { postgresql: 'bench', podIP: connection.host, user: connection.user, database: 'appdb', store: { kind: 's3', s3 } };
    }
  } else {
    // The store refuses a missing directory (in a cluster that means the backup volume is not mounted).
    await mkdir(join(work, 'store'));
    store = new DirectoryBackupStore(join(work, 'store'));
    if (values.job) {
      // The Jobs write to the same directory through the backup store service, as in a cluster.
      admin = await KubeClient.load({ kubeconfig: cluster.adminKubeconfig });
      storeService = await startStoreProcess({
        admin, service: { namespace: 'default', name: 'backup-store', secretName: 'backup-store-tls' }, backupDir: join(work, 'store'), workDir: work,
        kubeconfig: cluster.adminKubeconfig, operatorServiceAccount: 'default:bench-operator',
      });
      jobTarget = { postgresql: 'bench', podIP: connection.host, user: connection.user, database: 'appdb', store: { kind: 'volume', endpoint: storeService.endpoint } };
    }
  }
  const count = async (database: string): Promise<number> => Number((await sql<{ n: string }>(pgClientConfig(forDatabase(connection, database)), 'SELECT count(*) AS n FROM pgbench_accounts'))[0]?.n ?? 0);
  const originalRows = await count('appdb');
  const seconds = { plainBackup: [] as number[], plainToBucket: [] as number[], operatorBackup: [] as number[], encryptedBackup: [] as number[], jobBackup: [] as number[], plainRestore: [] as number[], operatorRestore: [] as number[], drillStart: [] as number[], drillRestore: [] as number[], drillRead: [] as number[], drill: [] as number[] };
  // --encrypt: each round also takes the operator's backup encrypted to two age recipients (spec.backup.encryption, as
  // during a key rotation), next to the unencrypted one, so encryption is measured against the backup's own time.
  const recipients = values.encrypt ? parseAgeRecipients((await Promise.all([newKeyPair(), newKeyPair()])).map((pair) => pair.recipient)) : undefined;
  // The CPU each backup takes in this process and the programs it ran (pg_dump; pg_restore for the operator's): what
  // the operator's checks add, in a figure that other load on the machine moves far less than the times.
  const cpu = { plainBackup: [] as number[], operatorBackup: [] as number[], encryptedBackup: [] as number[] };
  const cpuOf = async <T>(list: number[], work: () => Promise<T>): Promise<T> => {
    const before = await cpuSecondsOf('self', { reapedChildren: true });
    const result = await work();
    list.push((await cpuSecondsOf('self', { reapedChildren: true })) - before);
    return result;
  };
  const bucketClient = seaweed === undefined ? undefined : createS3Client({ endpoint: seaweed.endpoint, region: seaweed.region, forcePathStyle: true, credentials: seaweed.credentials });
  const jobTimings: JobTiming[] = [];
  // The CPU SeaweedFS spends on each of the operator's backups: on this machine it is taken from pg_dump and the
  // server, where a real bucket's is not.
  const storeCpuSeconds: number[] = [];
  // The CPU the backup store service spends on each volume Job's backup (it takes the dump over HTTPS, hashes it, writes
  // it and reads it back): in a cluster it runs on its own Pod's node, here on the same two cores as the Job.
  const serviceCpuSeconds: number[] = [];
  let dumpBytes = 0;

  for (let round = 1; round <= rounds; round++) {
    const plainDump = join(work, `plain-${String(round)}.dump`);
    const key = { namespace: 'bench', postgresql: 'bench', backup: `bench-${String(round)}` };
    const plainBackup = async (): Promise<void> => {
      seconds.plainBackup.push(await cpuOf(cpu.plainBackup, () => timed('pg_dump', join(bin, 'pg_dump'), ['-Fc', '-d', 'appdb', '-f', plainDump], env)));
    };
    const plainToBucket = async (): Promise<void> => {
      if (bucketClient === undefined) return;
      const started = performance.now();
      await plainDumpToBucket({ client: bucketClient, bucket: 'bench', key: `plain/${String(round)}.dump`, pgDump: join(bin, 'pg_dump'), database: 'appdb', env });
      seconds.plainToBucket.push((performance.now() - started) / 1000);
    };
    let manifest: BackupManifest | undefined;
    const operatorBackup = async (): Promise<void> => {
      const storeCpuBefore = await seaweed?.cpuSeconds();
      const started = performance.now();
      manifest = await cpuOf(cpu.operatorBackup, () => runBackup({ store, key, trigger: 'OnDemand', connection }));
      seconds.operatorBackup.push((performance.now() - started) / 1000);
      if (seaweed !== undefined) storeCpuSeconds.push((await seaweed.cpuSeconds()) - (storeCpuBefore ?? 0));
    };
    const encryptedBackup = async (): Promise<void> => {
      if (recipients === undefined) return;
      const started = performance.now();
      await cpuOf(cpu.encryptedBackup, () => runBackup({ store, key: { ...key, backup: `${key.backup}-age` }, trigger: 'OnDemand', connection, recipients }));
      seconds.encryptedBackup.push((performance.now() - started) / 1000);
    };
    const jobBackup = async (): Promise<void> => {
      if (jobTarget === undefined || admin === undefined) return;
      const servicePid = storeService?.child.pid;
      const serviceCpuBefore = servicePid === undefined ? 0 : await cpuSecondsOf(servicePid);
      const timing = await runBackupJob(cluster, admin, jobTarget, `bench-job-${String(round)}`, (jobKey) => store.manifest(jobKey));
      if (servicePid !== undefined) serviceCpuSeconds.push((await cpuSecondsOf(servicePid)) - serviceCpuBefore);
      jobTimings.push(timing);
      seconds.jobBackup.push(timing.total);
    };
    // Each restore starts from the same state: earlier writes checkpointed, and no restored copy left behind for
    // autovacuum to work on while the next one is timed (that made whichever restore came second about 50 % slower).
    const restoreInto = async (database: string, restore: () => Promise<number>): Promise<number> => {
      await sql(pgClientConfig(connection), 'CHECKPOINT');
      await sql(pgClientConfig(connection), `CREATE DATABASE ${database}`);
      const took = await restore();
      const rows = await count(database);
      await sql(pgClientConfig(connection), `DROP DATABASE ${database}`);
      if (rows !== originalRows) throw new Error(`round ${String(round)}: ${database} has ${String(rows)} rows, not ${String(originalRows)}`);
      return took;
    };
    const plainRestore = async (): Promise<void> => {
      seconds.plainRestore.push(await restoreInto('plain_restore', async () =>
        await timed('pg_restore', join(bin, 'pg_restore'), ['--single-transaction', '--exit-on-error', '--no-owner', '--no-acl', '-d', 'plain_restore', plainDump], env)
          + await timed('analyze', join(bin, 'psql'), ['-d', 'plain_restore', '-c', 'ANALYZE'], env)));
    };
    const operatorRestore = async (): Promise<void> => {
      const backup = manifest;
      if (backup === undefined) throw new Error('the operator backup of this round is missing');
      seconds.operatorRestore.push(await restoreInto('operator_restore', async () => {
        const started = performance.now();
        await restoreBackup({ store, backup, connection: forDatabase(connection, 'operator_restore'), role: 'app' });
        return (performance.now() - started) / 1000;
      }));
    };
    const drill = async (): Promise<void> => {
      const backup = manifest;
      if (!values.drill) return;
      if (backup === undefined) throw new Error('the operator backup of this round is missing');
      const name = `drill-${String(round)}`;
      const started = performance.now();
      const scratch = await startPostgresPod(cluster, { name, user: 'app', password: 'drill-password', database: 'appdb' });
      const ready = performance.now();
      await restoreBackup({ store, backup, connection: scratch, role: 'app' });
      const restored = performance.now();
      const answers = await readRestoredDatabase(scratch, undefined);
      const read = performance.now();
      seconds.drillStart.push((ready - started) / 1000);
      seconds.drillRestore.push((restored - ready) / 1000);
      seconds.drillRead.push((read - restored) / 1000);
      seconds.drill.push((read - ready) / 1000);
      await cluster.kubectl(['delete', 'pod', name, '--wait=true']);
      await cluster.kubectl(['delete', 'secret', `${name}-password`]);
      const accounts = answers.tables.find((t) => t.table === 'public.pgbench_accounts')?.rows;
      if (accounts !== originalRows) throw new Error(`round ${String(round)}: the drill counted ${String(accounts)} rows in pgbench_accounts, not ${String(originalRows)}`);
    };
    // Alternating the order keeps a slow or fast stretch of the machine from always falling on the same side.
    const plainFirst = round % 2 === 1;
    for (const step of plainFirst ? [plainBackup, plainToBucket, operatorBackup, encryptedBackup, jobBackup, plainRestore, operatorRestore, drill] : [jobBackup, encryptedBackup, operatorBackup, plainToBucket, plainBackup, drill, operatorRestore, plainRestore]) await step();

    dumpBytes = manifest?.size ?? 0;
    const at = (list: number[]): string => (list.at(-1) ?? 0).toFixed(2);
    const ratioAt = (operator: number[], plain: number[]): string => ratiosOf(operator, plain)[round - 1]?.toFixed(2) ?? '-';
    console.log(
      `round ${String(round)}/${String(rounds)}: backup plain ${at(seconds.plainBackup)} s, ` +
        (bucketClient === undefined ? '' : `plain into the bucket ${at(seconds.plainToBucket)} s, `) +
        `operator ${at(seconds.operatorBackup)} s (${ratioAt(seconds.operatorBackup, seconds.plainBackup)}); ` +
        (recipients === undefined ? '' : `encrypted ${at(seconds.encryptedBackup)} s (${ratioAt(seconds.encryptedBackup, seconds.operatorBackup)} of the operator's); `) +
        (jobTarget === undefined ? '' : `Job ${at(seconds.jobBackup)} s (${ratioAt(seconds.jobBackup, seconds.plainBackup)}); `) +
        `restore plain ${at(seconds.plainRestore)} s, operator ${at(seconds.operatorRestore)} s (${ratioAt(seconds.operatorRestore, seconds.plainRestore)})` +
        (values.drill ? `; drill: scratch server ${at(seconds.drillStart)} s, restore ${at(seconds.drillRestore)} s + read ${at(seconds.drillRead)} s (${ratioAt(seconds.drill, seconds.operatorRestore)} of the operator restore's)` : ''),
    );
  }

  const plainBackupSeconds = median(seconds.plainBackup);
  const operatorBackupSeconds = median(seconds.operatorBackup);
  const plainRestoreSeconds = median(seconds.plainRestore);
  const operatorRestoreSeconds = median(seconds.operatorRestore);
  const range = (list: number[]): string => `${Math.min(...list).toFixed(2)}-${Math.max(...list).toFixed(2)}`;
  const backupRatios = ratiosOf(seconds.operatorBackup, seconds.plainBackup);
  const restoreRatios = ratiosOf(seconds.operatorRestore, seconds.plainRestore);
  const backupRatioOfMedians = operatorBackupSeconds / plainBackupSeconds;
  const restoreRatioOfMedians = operatorRestoreSeconds / plainRestoreSeconds;
  const jobRatios = ratiosOf(seconds.jobBackup, seconds.plainBackup);
  const jobPipelineRatios = ratiosOf(jobTimings.map((t) => t.backup), seconds.plainBackup);
  const jobOverheads = jobTimings.map((t) => t.total - t.backup);
  const jobPhase = (phase: keyof JobTiming): number => median(jobTimings.map((t) => t[phase]));
  const bucketRatios = ratiosOf(seconds.operatorBackup, seconds.plainToBucket);
  const addedCpu = cpu.operatorBackup.map((took, i) => took - (cpu.plainBackup[i] ?? Number.NaN));
  console.log(`medians of ${String(rounds)} rounds (range), dump ${(dumpBytes / 2 ** 20).toFixed(0)} MiB, store ${storeKind}:`);
  console.log(`  plain pg_dump -Fc:              ${plainBackupSeconds.toFixed(2)} s (${range(seconds.plainBackup)})`);
  if (seconds.plainToBucket.length > 0) {
    console.log(`  plain pg_dump into the bucket:  ${median(seconds.plainToBucket).toFixed(2)} s (${range(seconds.plainToBucket)}), streamed, unchecked`);
  }
  console.log(`  operator backup (verified):     ${operatorBackupSeconds.toFixed(2)} s (${range(seconds.operatorBackup)})`);
  if (seconds.plainToBucket.length > 0) console.log(`    against plain into the bucket: ratio ${median(bucketRatios).toFixed(2)} (${range(bucketRatios)})`);
  console.log(`  CPU per backup, plain pg_dump ${median(cpu.plainBackup).toFixed(2)} s, operator (this process, pg_dump, pg_restore) ${median(cpu.operatorBackup).toFixed(2)} s: ` +
    `the checks add ${median(addedCpu).toFixed(2)} s (${range(addedCpu)})`);
  const encryptionRatios = ratiosOf(seconds.encryptedBackup, seconds.operatorBackup);
  const encryptionCpu = cpu.encryptedBackup.map((took, i) => took - (cpu.operatorBackup[i] ?? Number.NaN));
  if (recipients !== undefined) {
    console.log(`  encrypted to 2 age recipients:  ${median(seconds.encryptedBackup).toFixed(2)} s (${range(seconds.encryptedBackup)}), against the operator backup: ` +
      `ratio ${median(encryptionRatios).toFixed(3)} (${range(encryptionRatios)}), CPU ${median(encryptionCpu).toFixed(3)} s more (${range(encryptionCpu)})`);
  }
  if (jobTarget !== undefined) {
    console.log(`  the same as a Job:              ${median(seconds.jobBackup).toFixed(2)} s (${range(seconds.jobBackup)}), ratio ${median(jobRatios).toFixed(2)} (${range(jobRatios)})`);
    console.log(`  its backup (manifest start to verified): ${jobPhase('backup').toFixed(2)} s, ratio ${median(jobPipelineRatios).toFixed(2)} (${range(jobPipelineRatios)})`);
    console.log(`  Job start overhead:             ${median(jobOverheads).toFixed(2)} s (${range(jobOverheads)}): the rest of the Job's time, medians:`);
    console.log(`    create to container running ${jobPhase('podStart').toFixed(2)} s, to the backup's start ${jobPhase('processStart').toFixed(2)} s, ` +
      `verified to container terminated ${jobPhase('finish').toFixed(2)} s; the Job's Complete ${jobPhase('complete').toFixed(2)} s after that, not waited for`);
  }
  if (storeCpuSeconds.length > 0) console.log(`  SeaweedFS CPU per backup:       ${median(storeCpuSeconds).toFixed(2)} s (${range(storeCpuSeconds)}), on this machine`);
  if (serviceCpuSeconds.length > 0) console.log(`  backup store service CPU per Job: ${median(serviceCpuSeconds).toFixed(2)} s (${range(serviceCpuSeconds)}), on this machine`);
  console.log(`  plain pg_restore -1 + ANALYZE:  ${plainRestoreSeconds.toFixed(2)} s (${range(seconds.plainRestore)})`);
  console.log(`  operator restore (checked):     ${operatorRestoreSeconds.toFixed(2)} s (${range(seconds.operatorRestore)})`);
  const drillRatios = ratiosOf(seconds.drill, seconds.operatorRestore);
  if (values.drill) {
    console.log(`  restore drill, scratch server:  ${median(seconds.drillStart).toFixed(2)} s (${range(seconds.drillStart)}) from the pod's create to ready`);
    console.log(`  restore drill, restore + read:  ${median(seconds.drill).toFixed(2)} s (${range(seconds.drill)}), against the operator restore: ratio ${median(drillRatios).toFixed(2)} (${range(drillRatios)})`);
    console.log(`    of which the restore ${median(seconds.drillRestore).toFixed(2)} s (${range(seconds.drillRestore)}), counting every table's rows ${median(seconds.drillRead).toFixed(2)} s (${range(seconds.drillRead)})`);
  }
  console.log(`  ratio of the medians:           backup ${backupRatioOfMedians.toFixed(2)}, restore ${restoreRatioOfMedians.toFixed(2)}`);
  console.log(`  median of the rounds' ratios:   backup ${median(backupRatios).toFixed(2)} (${range(backupRatios)}), restore ${median(restoreRatios).toFixed(2)} (${range(restoreRatios)})`);

  const result = {
    benchmark: 'postgresql', store: storeKind, scale, rounds, database_bytes: databaseBytes, dump_bytes: dumpBytes, rows: originalRows,
    plain_backup_seconds: round(plainBackupSeconds), operator_backup_seconds: round(operatorBackupSeconds), backup_ratio: round(median(backupRatios)),
    ...(seconds.plainToBucket.length === 0 ? {} : { plain_to_bucket_seconds: round(median(seconds.plainToBucket)), backup_ratio_to_plain_bucket: round(median(bucketRatios)) }),
    plain_backup_cpu_seconds: round(median(cpu.plainBackup)), operator_backup_cpu_seconds: round(median(cpu.operatorBackup)), added_cpu_seconds: round(median(addedCpu)),
    plain_restore_seconds: round(plainRestoreSeconds), operator_restore_seconds: round(operatorRestoreSeconds), restore_ratio: round(median(restoreRatios)),
    ...(jobTarget === undefined ? {} : {
      job_backup_seconds: round(median(seconds.jobBackup)), job_backup_ratio: round(median(jobRatios)),
      job_pipeline_seconds: round(jobPhase('backup')), job_pipeline_ratio: round(median(jobPipelineRatios)),
      job_start_overhead_seconds: round(median(jobOverheads)),
      job_phases_seconds: { pod_start: round(jobPhase('podStart')), process_start: round(jobPhase('processStart')), finish: round(jobPhase('finish')), complete: round(jobPhase('complete')) },
    }),
    ...(recipients === undefined ? {} : {
      encrypted_backup_seconds: round(median(seconds.encryptedBackup)), encryption_ratio: Math.round(median(encryptionRatios) * 1000) / 1000,
      encryption_added_cpu_seconds: Math.round(median(encryptionCpu) * 1000) / 1000,
    }),
    ...(!values.drill ? {} : {
      drill_scratch_start_seconds: round(median(seconds.drillStart)), drill_seconds: round(median(seconds.drill)),
      drill_restore_seconds: round(median(seconds.drillRestore)), drill_read_seconds: round(median(seconds.drillRead)), drill_ratio_to_operator_restore: round(median(drillRatios)),
    }),
    ...(storeCpuSeconds.length === 0 ? {} : { store_cpu_seconds_per_backup: round(median(storeCpuSeconds)) }),
    ...(serviceCpuSeconds.length === 0 ? {} : { backup_store_service_cpu_seconds_per_job: round(median(serviceCpuSeconds)) }),
    target_ratio: 1.1,
    backup_ratio_of_medians: round(backupRatioOfMedians), restore_ratio_of_medians: round(restoreRatioOfMedians),
    rounds_seconds: Object.fromEntries(Object.entries(seconds).map(([name, list]) => [name, list.map(round)])),
  };
  console.log(`ratios (median of the rounds): backup ${String(result.backup_ratio)}, restore ${String(result.restore_ratio)} (target <= 1.10)`);
  console.log(JSON.stringify(result));
} finally {
  await seaweed?.stop();
  storeService?.child.kill('SIGTERM');
  await admin?.close();
  await cluster.stop();
  await rm(work, { recursive: true, force: true });
}

function median(list: number[]): number {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Each round's operator time over its plain time: two runs a few seconds apart. */
function ratiosOf(operator: number[], plain: number[]): number[] {
  return operator.map((took, i) => took / (plain[i] ?? Number.NaN));
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
