// End to end, encrypted backups (spec.backup.encryption) as a user runs them: installed with `kubectl apply -k`, keys
// made by the reference `age-keygen`, backups in an S3 bucket (SeaweedFS). What the bucket holds is restored into a
// new pod by the operator, and read by a person with only the bucket, `age -d` and plain `pg_restore`.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { findProvisionedTool, openE2eCluster, startSeaweedFs, waitFor, waitForCrdsEstablished, type E2eCluster, type RunningSeaweedFs } from '@k8s-operators/testkit';
import { portForward, queryPod, type DatabaseLogin, type PodAddress } from './cluster-access.ts';

const NS = 'postgresql-e2e-age';
const OPERATOR_NS = 'postgresql-operator-system';
const BUCKET = 'pg-encrypted';
const NAME = 'agedb';
const LOGIN: DatabaseLogin = { database: 'app', user: 'app', password: 'agedb-secret' };
/** The client tools of the server's major (postgres:15), as a person restoring by hand would use them. */
const PG_RESTORE = '/usr/lib/postgresql/15/bin/pg_restore';
const run = promisify(execFile);

let cluster: E2eCluster;
let s3: RunningSeaweedFs;
let ageDir: string;
let work: string;
/** Key files written by age-keygen, and the public keys it printed. */
const keys: Record<'old' | 'current' | 'stranger', { file: string; recipient: string }> = {} as never;

interface Condition { type: string; status: string; reason: string; message: string }
interface Pod { metadata: { name: string; uid: string; deletionTimestamp?: string }; status: { podIP?: string; conditions?: { type: string; status: string }[] } }

beforeAll(async () => {
  ageDir = await findProvisionedTool('age');
  work = await mkdtemp(join(tmpdir(), 'age-e2e-'));
  for (const name of ['old', 'current', 'stranger'] as const) {
    const file = join(work, `${name}.key`);
    await run(join(ageDir, 'age-keygen'), ['-o', file]);
    keys[name] = { file, recipient: (await run(join(ageDir, 'age-keygen'), ['-y', file])).stdout.trim() };
  }
  cluster = await openE2eCluster();
  await cluster.installer.install('postgresql-operator');
  await waitForCrdsEstablished((args) => cluster.kubectlOk(args), ['postgresqls.exp.wheel.jp', 'postgresqlbackups.exp.wheel.jp']);
  await cluster.kubectlOk(['-n', OPERATOR_NS, 'rollout', 'status', 'deployment/postgresql-operator-controller-manager', '--timeout=180s']);
  await cluster.freshNamespace(NS);
  // On kind, pods reach this machine only at the kind network's gateway (kind/e2e.sh passes it).
  s3 = await startSeaweedFs({ bucket: BUCKET, host: process.env.E2E_HOST_ADDRESS ?? '127.0.0.1' });
}, 300_000);

afterAll(async () => {
  // Undefined when start-up failed: that failure is the one to report.
  await (s3 as RunningSeaweedFs | undefined)?.stop();
  await (cluster as E2eCluster | undefined)?.close();
  await rm(work, { recursive: true, force: true });
});

function diagnoseOnFailure(): void {
  onTestFailed(async () => {
    const logs = await cluster.kubectl(['-n', OPERATOR_NS, 'logs', '-l', 'control-plane=controller-manager', '--prefix', '--tail=60']);
    const events = await cluster.kubectl(['-n', NS, 'get', 'events.events.k8s.io', '-o', 'custom-columns=REGARDING:.regarding.name,TYPE:.type,REASON:.reason,NOTE:.note']);
    console.error(`--- operator logs\n${logs.stdout}${logs.stderr}\n--- events\n${events.stdout}`);
  });
}

const apply = (manifest: unknown): Promise<string> => cluster.kubectlOk(['-n', NS, 'apply', '-f', '-'], { input: JSON.stringify(manifest) });
const jsonpath = (resource: string, path: string): Promise<string> => cluster.kubectlOk(['-n', NS, 'get', resource, '-o', `jsonpath=${path}`]);
const condition = async (type: string): Promise<Condition | undefined> =>
  (JSON.parse((await jsonpath(`postgresql/${NAME}`, '{.status.conditions}')) || '[]') as Condition[]).find((c) => c.type === type);
const objectPath = (name: string): string => `/${BUCKET}/${NS}/${NAME}/${name}`;

/** The identity Secret, holding the key files given, concatenated as `cat a.key b.key` makes one. */
async function identitySecret(...files: string[]): Promise<void> {
  const identity = (await Promise.all(files.map((file) => readFile(file, 'utf8')))).join('');
  await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${NAME}-age-identity` }, stringData: { identity } });
}

/** The pod clients are sent to: Ready and labelled appReady=ok, other than `not`. */
async function servingPod(not?: string): Promise<PodAddress & { uid: string }> {
  return waitFor(async () => {
    const pods = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'pods', '-l', `exp.wheel.jp/postgresql=${NAME},appReady=ok`, '-o', 'json'])) as { items: Pod[] };
    const pod = pods.items.find((p) => p.metadata.deletionTimestamp === undefined && p.metadata.uid !== not && (p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false));
    return pod?.status.podIP ? { namespace: NS, name: pod.metadata.name, ip: pod.status.podIP, uid: pod.metadata.uid } : undefined;
  }, { what: `a serving pod of ${NAME}`, timeoutMs: 120_000 });
}

const fingerprint = async (pod: PodAddress, database = 'app'): Promise<unknown> =>
  (await queryPod(cluster, pod, { ...LOGIN, database }, "SELECT count(*)::int AS rows, md5(string_agg(id || ':' || body, ',' ORDER BY id)) AS digest FROM items"))[0];

/** Runs plain pg_restore on this machine against the pod's PostgreSQL (through a port-forward on kind). */
async function pgRestore(pod: PodAddress, database: string, dumpFile: string): Promise<void> {
  const forwarded = cluster.kind === 'external' ? await portForward(cluster, pod) : undefined;
  try {
    const [host, port] = forwarded === undefined ? [pod.ip, 5432] : ['127.0.0.1', forwarded.port];
    await run(PG_RESTORE, ['--no-owner', `--host=${host}`, `--port=${port}`, `--username=${LOGIN.user}`, `--dbname=${database}`, '--exit-on-error', dumpFile], { env: { ...process.env, PGPASSWORD: LOGIN.password } });
  } finally {
    forwarded?.forward.kill();
  }
}

describe('encrypted backups in a bucket', () => {
  let served: PodAddress & { uid: string };
  let before: unknown;

  test('an encrypted backup to the bucket is restored by the operator into a new pod, with the identity of one of its two recipients', async () => {
    diagnoseOnFailure();
    await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's3-credentials' }, stringData: { accessKeyId: s3.credentials.accessKeyId, secretAccessKey: s3.credentials.secretAccessKey } });
    await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${NAME}-password` }, stringData: { postgresql_password: LOGIN.password } });
    // Only the current key: a backup encrypted to both opens with either.
    await identitySecret(keys.current.file);
    await apply({
      apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL', metadata: { name: NAME },
      spec: {
        db: LOGIN.database, user: LOGIN.user, password: `${NAME}-password`,
        backup: {
          suspend: true,
          s3: { bucket: BUCKET, endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentialsSecret: 's3-credentials' },
          encryption: { recipients: [keys.old.recipient, keys.current.recipient], identitySecretRef: { name: `${NAME}-age-identity` } },
        },
      },
    });
    const pod = await servingPod();
    await queryPod(cluster, pod, LOGIN, "CREATE TABLE items (id int PRIMARY KEY, body text); INSERT INTO items SELECT i, md5(i::text) FROM generate_series(1, 5000) AS i");
    before = await fingerprint(pod);
    await apply({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: `${NAME}-1` }, spec: { postgresql: NAME } });
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Completed', `postgresqlbackup/${NAME}-1`, '--timeout=120s']);
    expect(await jsonpath(`postgresqlbackup/${NAME}-1`, '{.status.verified}')).toBe('true');

    // The bucket holds ciphertext only, and the manifest names the two recipients.
    const dump = Buffer.from(await (await s3.request({ method: 'GET', path: objectPath(`${NAME}-1.dump`) })).arrayBuffer());
    expect(dump.subarray(0, 22).toString()).toBe('age-encryption.org/v1\n');
    const manifest = (await (await s3.request({ method: 'GET', path: objectPath(`${NAME}-1.manifest.json`) })).json()) as Record<string, unknown>;
    expect(manifest).toMatchObject({ manifestVersion: 2, size: dump.byteLength, sha256: createHash('sha256').update(dump).digest('hex'), encryption: { format: 'age', recipients: [keys.old.recipient, keys.current.recipient] } });

    await cluster.kubectlOk(['-n', NS, 'delete', 'pod', pod.name, '--wait=false']);
    served = await servingPod(pod.uid);
    expect(await fingerprint(served)).toEqual(before);
    expect((await condition('Restored'))?.message).toContain(`restored from backup ${NAME}-1`);
  }, 300_000);

  test('the same object, downloaded from the bucket, decrypted by the reference age with the other key and restored by plain pg_restore', async () => {
    diagnoseOnFailure();
    const encrypted = join(work, `${NAME}-1.dump.age`);
    await writeFile(encrypted, Buffer.from(await (await s3.request({ method: 'GET', path: objectPath(`${NAME}-1.dump`) })).arrayBuffer()));
    const plain = join(work, `${NAME}-1.dump`);
    await run(join(ageDir, 'age'), ['-d', '-i', keys.old.file, '-o', plain, encrypted]);
    await queryPod(cluster, served, LOGIN, 'CREATE DATABASE scratch');
    await pgRestore(served, 'scratch', plain);
    expect(await fingerprint(served, 'scratch')).toEqual(before);
  }, 120_000);

  test('an identity of neither recipient keeps a new pod out of the Service with Restored=False NoMatchingIdentity, naming keys but never a private one', async () => {
    diagnoseOnFailure();
    await identitySecret(keys.stranger.file);
    await cluster.kubectlOk(['-n', NS, 'delete', 'pod', served.name, '--wait=false']);
    const refused = await waitFor(async () => {
      const restored = await condition('Restored');
      return restored?.reason === 'NoMatchingIdentity' ? restored : undefined;
    }, { what: 'Restored=False NoMatchingIdentity', timeoutMs: 120_000 });
    expect(refused.status).toBe('False');
    expect(refused.message).toContain(`it was encrypted to ${keys.old.recipient}, ${keys.current.recipient}`);
    expect(refused.message).toContain(`holds the key of ${keys.stranger.recipient}`);
    // The pod deleted above may still be stopping (on kind its server takes seconds to shut down) with its old label;
    // a terminating pod is no endpoint of the Service. No other pod may carry the label.
    const pods = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'pods', '-o', 'json'])) as { items: { metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string } }[] };
    expect(pods.items.filter((p) => p.metadata.labels?.appReady === 'ok' && p.metadata.deletionTimestamp === undefined).map((p) => p.metadata.name)).toEqual([]);
    const notes = await cluster.kubectlOk(['-n', NS, 'get', 'events.events.k8s.io', `--field-selector=reason=NoMatchingIdentity`, '-o', 'jsonpath={.items[*].note}']);
    expect(notes).toContain('cannot be decrypted, nothing of it was restored');
    const everything = await cluster.kubectlOk(['-n', NS, 'get', 'postgresqls,postgresqlbackups,events.events.k8s.io', '-o', 'json']);
    const logs = await cluster.kubectlOk(['-n', OPERATOR_NS, 'logs', '-l', 'control-plane=controller-manager', '--tail=-1']);
    for (const text of [everything, logs]) expect(text).not.toMatch(/AGE-SECRET-KEY-1[0-9A-Z]/);
  }, 180_000);
});
