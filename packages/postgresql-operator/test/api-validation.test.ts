import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestCluster } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The generated CRDs on a real API server: the seed's manifest applies unchanged, defaults are filled in, and bad
// input is refused with messages that say what to fix.

const deploy = fileURLToPath(new URL('../../../deploy/postgresql-operator/', import.meta.url));
let cluster: TestCluster;
/** A public key of the encryption sample. */
const RECIPIENT = 'age1fdy93e0zqyps6wrs5xw7qn2n5leeujgvyplve5nzu36a4ayay42sn64yrc';

beforeAll(async () => {
  cluster = await TestCluster.start({ node: false });
  const applied = await cluster.kubectl(['apply', '-k', join(deploy, 'crd')]);
  expect(applied.stderr).toBe('');
  await cluster.waitForCrdsEstablished(['postgresqls.exp.wheel.jp', 'postgresqlbackups.exp.wheel.jp']);
});
afterAll(async () => {
  await cluster.stop();
});

async function apply(manifest: string): Promise<{ code: number; stderr: string }> {
  return cluster.kubectl(['apply', '-f', '-'], { input: manifest });
}

async function getJson<T>(...args: string[]): Promise<T> {
  const result = await cluster.kubectl(['get', ...args, '-o', 'json']);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as T;
}

function postgresql(name: string, spec: string): string {
  return `apiVersion: exp.wheel.jp/v1\nkind: PostgreSQL\nmetadata: {name: ${name}}\nspec:\n${spec}`;
}

describe('PostgreSQL and PostgreSQLBackup on the API server', () => {
  it('accepts the seed\'s db-for-foo.yaml unchanged and fills in the defaults', async () => {
    const result = await cluster.kubectl(['apply', '-f', join(deploy, 'samples', 'db-for-foo.yaml')]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('postgresql.exp.wheel.jp/foodb created');
    const foodb = await getJson<{ spec: Record<string, unknown> }>('pg', 'foodb');
    expect(foodb.spec).toEqual({
      db: 'foo',
      user: 'foo',
      password: 'foodb-password',
      image: 'postgres:15',
      backup: {
        schedule: '*/5 * * * *',
        suspend: false,
        retention: { keepLast: 12, keepFailed: 3 },
        onDelete: { finalBackup: true, backups: 'Retain' },
        job: { ttlSecondsAfterFinished: 86_400 },
      },
    });
    const table = await cluster.kubectl(['get', 'pg', 'foodb']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+DB\s+READY\s+LAST BACKUP\s+AGE$/);
    expect(table.stdout.split('\n')[1]).toMatch(/^foodb\s+foo\s+/);
  });

  it('accepts the samples with the new fields and an on-demand backup', async () => {
    for (const sample of ['exp.wheel.jp_v1_postgresql.yaml', 'exp.wheel.jp_v1_postgresqlbackup.yaml', 'restore-drill.yaml', 'restore-drill-check-configmap.yaml', 'encrypted-backups.yaml', 'encrypted-backups-key-rotation.yaml']) {
      expect(await cluster.kubectl(['apply', '-f', join(deploy, 'samples', sample)])).toMatchObject({ code: 0, stderr: '' });
    }
    const invoices = await getJson<{ spec: { backup: Record<string, unknown> } }>('pg', 'invoices');
    expect(invoices.spec.backup.verify).toEqual({
      schedule: '30 3 * * *',
      check: { query: 'SELECT count(*) > 0 FROM invoices WHERE issued_on >= current_date - 1', expect: 't' },
      resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi' } },
    });
    const orders = await getJson<{ spec: { backup: Record<string, unknown> } }>('pg', 'orders');
    expect(orders.spec.backup.verify).toMatchObject({ check: { configMapRef: { name: 'orders-drill-check' } } });
    // The rotation sample is the same PostgreSQL one step later: both recipients, the identity key defaulted.
    const ledger = await getJson<{ spec: { backup: Record<string, unknown> } }>('pg', 'ledger');
    expect(ledger.spec.backup.encryption).toEqual({
      recipients: ['age1fdy93e0zqyps6wrs5xw7qn2n5leeujgvyplve5nzu36a4ayay42sn64yrc', 'age1upcq485qjhwxgr6vep0l4jh0z647ddllnwyf3wcmedvn2sx8z9jsm6m9mr'],
      identitySecretRef: { name: 'ledger-age-identity', key: 'identity' },
    });
    const backup = await getJson<{ spec: Record<string, unknown> }>('pgbackup', 'foodb-before-migration');
    expect(backup.spec).toEqual({ postgresql: 'foodb', trigger: 'OnDemand' });
    const table = await cluster.kubectl(['get', 'postgresqlbackups']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+POSTGRESQL\s+PHASE\s+SIZE\s+VERIFIED\s+COMPLETED\s+AGE$/);
  });

  it.each([
    ['db: Foo', "spec.db: Invalid value: \"Foo\": db must be a lowercase PostgreSQL identifier: a letter or '_', then letters, digits or '_' (e.g. foo or app_db)"],
    ['db: my-db', 'db must be a lowercase PostgreSQL identifier'],
    ['db: template1', "db cannot be template0 or template1: those are PostgreSQL's templates for new databases"],
    [`db: ${'a'.repeat(64)}`, 'spec.db: Too long: may not be more than 63'],
    ['user: pg_monitor', 'user cannot start with pg_: PostgreSQL reserves those role names'],
    ['user: "1user"', 'user must be a lowercase PostgreSQL identifier'],
    ['password: "bXlwYXNzd29yZA=="', 'password must be the name of a Secret (holding the key postgresql_password), not the password itself'],
    ['backup: {schedule: "* * * *"}', 'backup.schedule must be a cron expression with 5 fields (minute hour day-of-month month day-of-week), e.g. "*/5 * * * *", or one of @hourly, @daily, @weekly, @monthly, @yearly'],
    ['backup: {schedule: "0 * * * * *"}', 'backup.schedule must be a cron expression with 5 fields'],
    ['backup: {retention: {maxAge: 7days}}', 'retention.maxAge must be a whole number followed by m, h, d or w, e.g. 7d'],
    ['backup: {retention: {keepLast: 0}}', 'spec.backup.retention.keepLast: Invalid value: 0: spec.backup.retention.keepLast in body should be greater than or equal to 1'],
    ['backup: {retention: {keepFailed: 101}}', 'spec.backup.retention.keepFailed in body should be less than or equal to 100'],
    ['backup: {onDelete: {backups: Keep}}', 'spec.backup.onDelete.backups: Unsupported value: "Keep": supported values: "Retain", "Delete"'],
    ['storage: {size: lots}', 'storage.size must be a quantity such as 1Gi or 500Mi'],
    ['backup: {verify: {schedule: "@nightly"}}', 'backup.verify.schedule must be a cron expression with 5 fields (minute hour day-of-month month day-of-week), e.g. "0 3 * * *"'],
    ['backup: {verify: {check: {query: "SELECT 1"}}}', 'verify.check needs either both query and expect, e.g. {query: "SELECT count(*) > 0 FROM orders", expect: "t"}, or only configMapRef'],
    ['backup: {verify: {check: {query: "SELECT 1", expect: "1", configMapRef: {name: orders-drill}}}}', 'verify.check needs either both query and expect'],
    ['backup: {verify: {check: {configMapRef: {name: Orders}}}}', "backup.verify.check.configMapRef.name must be a Kubernetes object name"],
    ['backup: {verify: {check: {query: "", expect: "1"}}}', 'spec.backup.verify.check.query in body should be at least 1 chars long'],
    [`backup: {encryption: {recipients: [${RECIPIENT}]}}`, 'spec.backup.encryption.identitySecretRef: Required value'],
    [`backup: {encryption: {recipients: [AGE-SECRET-KEY-1${'Q'.repeat(58)}], identitySecretRef: {name: k}}}`, 'each encryption.recipients entry must be an age public key: age1 and 58 lowercase bech32 characters, as `age-keygen` prints it after "Public key:" (never the AGE-SECRET-KEY-1... line, which is private)'],
    [`backup: {encryption: {recipients: [${RECIPIENT.slice(0, -1)}b], identitySecretRef: {name: k}}}`, 'each encryption.recipients entry must be an age public key'],
    [`backup: {encryption: {recipients: [${RECIPIENT}, ${RECIPIENT}], identitySecretRef: {name: k}}}`, 'encryption.recipients must not name the same key twice'],
    ['backup: {encryption: {recipients: [], identitySecretRef: {name: k}}}', 'spec.backup.encryption.recipients in body should have at least 1 items'],
    ['backup: {encryption: {identitySecretRef: {name: Keys}}}', 'encryption.identitySecretRef.name must be a Kubernetes object name'],
  ])('refuses %s', async (field, message) => {
    const defaults: Record<string, string> = { db: 'db: bad', user: 'user: bad', password: 'password: bad-password' };
    const name = field.split(':')[0] ?? '';
    const spec = Object.entries({ ...defaults, [name]: field }).map(([, line]) => `  ${line}\n`).join('');
    const result = await apply(postgresql('bad', spec));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
  });

  it('refuses to change db or user of an existing PostgreSQL, and the PostgreSQL of a backup', async () => {
    expect(await apply(postgresql('fixed', '  db: app\n  user: app\n  password: app-password\n'))).toMatchObject({ code: 0 });
    const changedDb = await cluster.kubectl(['patch', 'pg', 'fixed', '--type=merge', '-p', '{"spec":{"db":"other"}}']);
    expect(changedDb.stderr).toContain('db cannot be changed once the database exists; create a new PostgreSQL instead');
    const changedUser = await cluster.kubectl(['patch', 'pg', 'fixed', '--type=merge', '-p', '{"spec":{"user":"other"}}']);
    expect(changedUser.stderr).toContain('user cannot be changed once the database exists');
    const changedSchedule = await cluster.kubectl(['patch', 'pg', 'fixed', '--type=merge', '-p', '{"spec":{"backup":{"schedule":"@daily"}}}']);
    expect(changedSchedule).toMatchObject({ code: 0, stderr: '' });

    const movedBackup = await cluster.kubectl([
      'patch', 'pgbackup', 'foodb-before-migration', '--type=merge', '-p', '{"spec":{"postgresql":"fixed"}}',
    ]);
    expect(movedBackup.stderr).toContain('postgresql cannot be changed: a backup belongs to one database; create a new PostgreSQLBackup');
    const retriggered = await cluster.kubectl([
      'patch', 'pgbackup', 'foodb-before-migration', '--type=merge', '-p', '{"spec":{"trigger":"Scheduled"}}',
    ]);
    expect(retriggered.stderr).toContain('trigger cannot be changed');
  });
});
