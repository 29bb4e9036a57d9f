// npm run bench -- postgresql-secrets [--secrets 5000] [--secret-bytes 2048] [--settle-seconds 15]: the operator's
// memory in a cluster with many Secrets that are none of its business, against the same operator in a cluster with
// none. On a local control plane with the operator's CRDs, the operator process (src/main.ts, the image's Node flags)
// is started with no Secrets in the cluster; once /readyz answers and it has settled its resident memory is read. Then
// N Opaque Secrets of the given size are created in other namespaces and the operator is started again and measured the
// same way. An operator that lists and caches Secrets grows with them; one that reads only the Secrets it is pointed at
// does not. Prints figures; the last line is one JSON object. It never fails on a number.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { KubeClient, Resources } from '@k8s-operators/controller-core';
import { ControlPlane, freePort, waitFor } from '@k8s-operators/testkit';
import { OPERATOR_NODE_FLAGS } from '@k8s-operators/controller-core/operator-node-flags';
import { CRD_FILES } from '../src/api/crd-files.ts';

const { values } = parseArgs({
  options: {
    secrets: { type: 'string', default: '5000' },
    'secret-bytes': { type: 'string', default: '2048' },
    'settle-seconds': { type: 'string', default: '15' },
  },
});
const integer = (flag: string, value: string, min: number): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${String(min)}, got ${JSON.stringify(value)}`);
  return n;
};
const secretCount = integer('secrets', values.secrets, 1);
const secretBytes = integer('secret-bytes', values['secret-bytes'], 1);
const settleSeconds = integer('settle-seconds', values['settle-seconds'], 0);
/** Namespaces the unrelated Secrets are spread over, as in a cluster with many applications. */
const SECRET_NAMESPACES = 50;
const CREATE_CONCURRENCY = 32;

async function memoryMib(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kib = (field: string): number => {
    const value = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
    if (value === undefined) throw new Error(`/proc/${String(pid)}/status has no ${field} line`);
    return Number(value) / 1024;
  };
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

async function installCrds(client: KubeClient): Promise<void> {
  for (const file of (await readdir(CRD_FILES.directory)).filter((name) => name.startsWith('exp.wheel.jp_'))) {
    for (const document of parseAllDocuments(await readFile(join(CRD_FILES.directory, file), 'utf8'))) {
      await client.apply(Resources.CustomResourceDefinition, document.toJSON() as never, { fieldManager: 'secrets-bench' });
    }
  }
}

async function createUnrelatedSecrets(client: KubeClient): Promise<void> {
  for (let n = 0; n < SECRET_NAMESPACES; n += 1) await client.create(Resources.Namespace, { metadata: { name: `app-${String(n)}` } });
  const value = Buffer.alloc(secretBytes, 'x').toString('base64');
  let next = 0;
  let lastReport = performance.now();
  const worker = async (): Promise<void> => {
    while (next < secretCount) {
      const n = next;
      next += 1;
      await client.create(Resources.Secret, {
        metadata: { name: `unrelated-${String(n)}`, namespace: `app-${String(n % SECRET_NAMESPACES)}` },
        type: 'Opaque',
        data: { value },
      });
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        console.log(`  ${String(n + 1)}/${String(secretCount)} Secrets created`);
      }
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
}

/** Starts the operator, waits for /readyz and the settle time, and reads its memory; then stops it. */
async function measureOperator(kubeconfig: string): Promise<{ rss: number; peak: number; secondsToReady: number }> {
  const healthPort = await freePort();
  const source = join(import.meta.dirname, '..', 'src', 'main.ts');
  const started = performance.now();
  const operator: ChildProcess = spawn(
    process.execPath,
    ['--conditions=source', ...OPERATOR_NODE_FLAGS, source, `--kubeconfig=${kubeconfig}`, '--backup-store-service=default/postgresql-operator-backup-store',
      `--health-probe-bind-address=127.0.0.1:${String(healthPort)}`, '--metrics-bind-address=0', '--leader-elect=false', '--log-level=warn'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    await waitFor(
      async () => {
        if (operator.exitCode !== null) throw new Error(`the operator exited with code ${String(operator.exitCode)}`);
        const answer = await fetch(`http://127.0.0.1:${String(healthPort)}/readyz`).catch(() => undefined);
        return answer?.ok === true;
      },
      { what: 'the operator to be ready', timeoutMs: 120_000 },
    );
    const secondsToReady = (performance.now() - started) / 1000;
    await sleep(settleSeconds * 1000);
    return { ...(await memoryMib(operator.pid ?? 0)), secondsToReady };
  } finally {
    operator.kill('SIGTERM');
  }
}

const dir = await mkdtemp(join(tmpdir(), 'postgresql-secrets-bench-'));
console.log('starting a local control plane');
const controlPlane = await ControlPlane.start({ dir });
process.once('SIGINT', () => {
  void controlPlane.stop().then(() => rm(dir, { recursive: true, force: true })).finally(() => process.exit(130));
});
try {
  const client = await KubeClient.load({ kubeconfig: controlPlane.adminKubeconfig, userAgent: 'postgresql-secrets-bench' });
  await installCrds(client);
  console.log('operator with no Secrets in the cluster ...');
  const without = await measureOperator(controlPlane.adminKubeconfig);
  console.log(`  RSS ${without.rss.toFixed(1)} MiB (peak ${without.peak.toFixed(1)}), ready after ${without.secondsToReady.toFixed(1)} s`);
  console.log(`creating ${String(secretCount)} unrelated Secrets of ${String(secretBytes)} bytes in ${String(SECRET_NAMESPACES)} namespaces ...`);
  await createUnrelatedSecrets(client);
  console.log(`operator with ${String(secretCount)} unrelated Secrets in the cluster ...`);
  const withSecrets = await measureOperator(controlPlane.adminKubeconfig);
  console.log(`  RSS ${withSecrets.rss.toFixed(1)} MiB (peak ${withSecrets.peak.toFixed(1)}), ready after ${withSecrets.secondsToReady.toFixed(1)} s`);
  console.log(`the Secrets cost the operator ${(withSecrets.rss - without.rss).toFixed(1)} MiB of resident memory`);
  await client.close();
  const round = (n: number): number => Number(n.toFixed(1));
  console.log(JSON.stringify({
    secrets: secretCount,
    secret_bytes: secretBytes,
    settle_seconds: settleSeconds,
    node_flags: OPERATOR_NODE_FLAGS.join(' '),
    rss_mib_without_secrets: round(without.rss),
    rss_mib_with_secrets: round(withSecrets.rss),
    rss_mib_delta: round(withSecrets.rss - without.rss),
    peak_rss_mib_without_secrets: round(without.peak),
    peak_rss_mib_with_secrets: round(withSecrets.peak),
    seconds_to_ready_without_secrets: round(without.secondsToReady),
    seconds_to_ready_with_secrets: round(withSecrets.secondsToReady),
  }));
} finally {
  await controlPlane.stop();
  await rm(dir, { recursive: true, force: true });
}
