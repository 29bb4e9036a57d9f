// The seed article's PostgreSQL story: rows written, backed up, the pod deleted, and the new pod restored before it
// gets traffic.
import { join } from 'node:path';
import pg from 'pg';
import { until, type DemoContext } from './demo-context.ts';
import { waitForCrdsEstablished } from '@k8s-operators/testkit';

const NS = 'demo-postgresql';

async function readyPodAddress(ctx: DemoContext, exclude?: string): Promise<string | undefined> {
  const out = await ctx.kubectl(['-n', NS, 'get', 'pods', '-l', 'appReady=ok', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.podIP}{"\\n"}{end}']);
  const pods = out.split('\n').filter(Boolean).map((l) => l.split(' ')).filter(([name, ip]) => ip && name !== exclude);
  const first = pods[0];
  return first ? `${first[0] ?? ''} ${first[1] ?? ''}` : undefined;
}

async function withDatabase<T>(ctx: DemoContext, address: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const password = Buffer.from(await ctx.kubectl(['-n', NS, 'get', 'secret', 'foodb-password', '-o', 'jsonpath={.data.postgresql_password}']), 'base64').toString();
  const client = new pg.Client({ host: address, port: 5432, user: 'foo', password, database: 'foo' });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

export async function postgresqlStory(ctx: DemoContext, repo: string): Promise<void> {
  await ctx.step('postgresql-operator: install with kubectl apply -k deploy/postgresql-operator', async () => {
    await ctx.kubectl(['apply', '-k', join(repo, 'deploy/postgresql-operator')]);
    await waitForCrdsEstablished((args) => ctx.kubectl(args), ['postgresqls.exp.wheel.jp', 'postgresqlbackups.exp.wheel.jp']);
    await ctx.kubectl(['-n', 'postgresql-operator-system', 'rollout', 'status', 'deployment/postgresql-operator-controller-manager', '--timeout=180s']);
  });
  const first = await ctx.step(`apply the seed article's db-for-foo.yaml in namespace ${NS}`, async () => {
    await ctx.kubectl(['create', 'namespace', NS]).catch(() => '');
    await ctx.kubectl(['-n', NS, 'apply', '-f', join(repo, 'deploy/postgresql-operator/samples/db-for-foo.yaml')]);
    const pod = await until('a pod labelled appReady=ok', () => readyPodAddress(ctx));
    ctx.show(`pod ${pod.split(' ')[0] ?? ''} at ${pod.split(' ')[1] ?? ''} is labelled appReady=ok`);
    return pod;
  });
  const [firstPod = '', firstAddress = ''] = first.split(' ');
  await ctx.step('write rows, as in the article', async () => {
    await withDatabase(ctx, firstAddress, async (client) => {
      await client.query("CREATE TABLE hoge (id SERIAL, name TEXT); INSERT INTO hoge (name) VALUES ('foo'), ('bar')");
    });
    ctx.show("CREATE TABLE hoge; INSERT 'foo', 'bar'");
  });
  await ctx.step('take a backup (a PostgreSQLBackup), verified before it counts', async () => {
    await ctx.kubectl(['-n', NS, 'apply', '-f', '-'], 'apiVersion: exp.wheel.jp/v1\nkind: PostgreSQLBackup\nmetadata: {name: before-delete}\nspec: {postgresql: foodb}\n');
    await ctx.kubectl(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Completed', 'postgresqlbackup/before-delete', '--timeout=120s']);
    ctx.show((await ctx.kubectl(['-n', NS, 'get', 'postgresqlbackups'])).trimEnd().split('\n').join('\n    '));
  });
  await ctx.step('delete the pod; the new one is restored before it is labelled appReady=ok', async () => {
    await ctx.kubectl(['-n', NS, 'delete', 'pod', firstPod, '--wait=false']);
    const next = await until('the new pod to be restored and labelled', () => readyPodAddress(ctx, firstPod), 180_000);
    const [, address = ''] = next.split(' ');
    const rows = await withDatabase(ctx, address, async (client) => (await client.query<{ id: number; name: string }>('SELECT id, name FROM hoge ORDER BY id')).rows);
    ctx.show(`new pod ${next.split(' ')[0] ?? ''}: SELECT * FROM hoge → ${rows.map((r) => `${String(r.id)} ${r.name}`).join(', ')}`);
    if (rows.length !== 2) throw new Error(`expected the 2 rows back, found ${String(rows.length)}`);
  });
  ctx.summary.push({ story: 'postgresql', outcome: `rows → verified backup → pod deleted → restored before ready (kubectl -n ${NS} get pg,postgresqlbackups)` });
}
