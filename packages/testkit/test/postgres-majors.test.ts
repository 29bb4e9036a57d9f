// A postgres:<major> Pod on the local node runs that major's server: this machine's own as a process when it has that
// major, else the major's stand-in image (tools/images/postgres-stand-in.sh) in the container engine; another major
// only where no stand-in can exist, said in the Pod's log. Needs this machine's PostgreSQL 15 (Debian bookworm's) and a
// container engine; the first run on a machine builds PostgreSQL 17's stand-in (debootstrap of trixie, then Debian's
// postgresql-17: 57 s and 26 s here with a fast mirror).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TestCluster, waitFor, type KubeApi } from '../src/index.ts';

interface Pod {
  metadata: { name: string };
  status?: { podIP?: string; conditions?: { type: string; status: string }[]; containerStatuses?: { containerID?: string; imageID?: string }[] };
}

let cluster: TestCluster;
let api: KubeApi;

beforeAll(async () => {
  cluster = await TestCluster.start();
  api = await cluster.admin();
});
afterAll(async () => {
  await cluster.stop();
});

/** A database Pod as the PostgreSQL operator makes one: the postgres user under the restricted Pod Security Standard. */
function databasePod(name: string, image: string): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: {
      securityContext: { runAsNonRoot: true, runAsUser: 999, runAsGroup: 999, fsGroup: 999, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{
        name: 'postgres', image, ports: [{ containerPort: 5432 }],
        env: [{ name: 'POSTGRES_USER', value: 'app' }, { name: 'POSTGRES_DB', value: 'app' }, { name: 'POSTGRES_PASSWORD', value: `${name}-pw` }, { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' }],
        readinessProbe: { exec: { command: ['pg_isready', '-U', 'app', '-d', 'app'] }, periodSeconds: 1 },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
      }],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  });
}

async function readyPod(name: string, timeoutMs: number): Promise<Pod> {
  return waitFor(async () => {
    const pod = await api.get<Pod>(`/api/v1/namespaces/default/pods/${name}`);
    return pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? pod : undefined;
  }, { what: `pod ${name} to be Ready`, timeoutMs });
}

/** What the server in the Pod says of itself: its version, and the addresses it listens on. */
async function server(pod: Pod, password: string): Promise<{ version: string; listen: string }> {
  const client = new pg.Client({ host: pod.status?.podIP, port: 5432, user: 'app', password, database: 'app' });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string; listen: string }>("SELECT current_setting('server_version') AS version, current_setting('listen_addresses') AS listen");
    return rows[0] ?? { version: '', listen: '' };
  } finally {
    await client.end();
  }
}

describe('postgres:<major> Pods run the major they ask for', () => {
  test('postgres:17, which this machine lacks, runs PostgreSQL 17 from its stand-in image in the container engine, on the Pod\'s address', async () => {
    const create = await cluster.kubectl(['apply', '-f', '-'], { input: databasePod('pg17', 'postgres:17') });
    expect(create.code).toBe(0);
    // The first run on a machine builds the stand-in while the Pod waits.
    const pod = await readyPod('pg17', 600_000);
    // Only the Pod's address is taken (host network), as the process-run servers do: other Pods keep port 5432 too.
    expect(await server(pod, 'pg17-pw')).toEqual({ version: expect.stringMatching(/^17\.\d+ /) as string, listen: pod.status?.podIP });
    expect(pod.status?.containerStatuses?.[0]?.containerID).toMatch(/^docker:\/\/k8s_postgres_pg17_default_/);
    expect(pod.status?.containerStatuses?.[0]?.imageID).toMatch(/^sha256:/);
    const logs = await cluster.kubectl(['logs', 'pg17']);
    expect(logs.stdout).toMatch(/testkit: postgres:17: this machine has no PostgreSQL 17 server \(it has [\d, ]+\); running the stand-in image k8s-operators\.local\/postgres:17-trixie-[0-9a-f]{12} through the container engine/);
    expect((await cluster.kubectl(['delete', 'pod/pg17', '--wait=true', '--timeout=60s'])).code).toBe(0);
  }, 660_000);

  test('postgres:15, which this machine has, still runs as this machine\'s own server, not in the engine', async () => {
    expect((await cluster.kubectl(['apply', '-f', '-'], { input: databasePod('pg15', 'postgres:15') })).code).toBe(0);
    const pod = await readyPod('pg15', 90_000);
    expect(await server(pod, 'pg15-pw')).toEqual({ version: expect.stringMatching(/^15\.\d+ /) as string, listen: pod.status?.podIP });
    expect(pod.status?.containerStatuses?.[0]?.containerID).toMatch(/^testkit:\/\/\d+$/);
    expect((await cluster.kubectl(['delete', 'pod/pg15', '--wait=true', '--timeout=60s'])).code).toBe(0);
  }, 120_000);

  test('postgres:16, which no Debian suite carries, runs the newest server this machine has, and its log says so', async () => {
    expect((await cluster.kubectl(['apply', '-f', '-'], { input: databasePod('pg16', 'postgres:16') })).code).toBe(0);
    const pod = await readyPod('pg16', 90_000);
    expect((await server(pod, 'pg16-pw')).version).toMatch(/^15\.\d+ /);
    expect((await cluster.kubectl(['logs', 'pg16'])).stdout).toContain(
      'testkit: postgres:16 asks for PostgreSQL 16, which this machine lacks (it has 15), and no Debian suite carries PostgreSQL 16 ' +
        '(bookworm has 15, trixie 17), so there is no local stand-in for postgres:16; running 15\n',
    );
    expect((await cluster.kubectl(['delete', 'pod/pg16', '--wait=true', '--timeout=60s'])).code).toBe(0);
  }, 120_000);
});
