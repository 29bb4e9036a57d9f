import { Type } from 'typebox';
import { DEFAULT_RESTORE_CHECK_RESOURCES, DEFAULT_RESTORE_CHECK_SCHEDULE } from './defaults.ts';
import { CRON_SHAPE } from './formats.ts';
import { objectName } from './object-name-schema.ts';
import { MAX_CHECK_TEXT, RESTORE_CHECK_EXPECT_KEY, RESTORE_CHECK_QUERY_KEY } from './restore-check.ts';

/**
 * `PostgreSQL.spec.backup.verify`: restore drills. On a schedule (and on demand, see RESTORE_CHECK_ANNOTATION) the
 * newest usable backup is restored into a scratch pod and checked; the result is recorded on the backup
 * (`status.restoreCheck`) and on the PostgreSQL (the `BackupRestorable` condition).
 */

export const RestoreCheckSpecSchema = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        description:
          'A SQL query run in a read-only transaction on the restored database, as spec.user, whose answer you can ' +
          'state, e.g. "SELECT count(*) > 0 FROM orders" (expect "t") or "SELECT max(id) >= 1000 FROM invoices".',
        minLength: 1,
        maxLength: MAX_CHECK_TEXT,
      }),
    ),
    expect: Type.Optional(
      Type.String({
        description:
          "The query's answer as `psql -At` prints it: columns joined by '|', one line per row, NULL as empty; compared " +
          'with trailing blanks and newlines removed. E.g. "t" for a boolean, "42", or "alice|3".',
        maxLength: MAX_CHECK_TEXT,
      }),
    ),
    configMapRef: Type.Optional(
      Type.Object(
        {
          name: objectName(
            'backup.verify.check.configMapRef.name',
            `The ConfigMap in the PostgreSQL's namespace whose data.${RESTORE_CHECK_QUERY_KEY} is the query and data.${RESTORE_CHECK_EXPECT_KEY} its answer.`,
          ),
        },
        {
          description:
            `The check from a ConfigMap instead of inline (keys ${RESTORE_CHECK_QUERY_KEY} and ${RESTORE_CHECK_EXPECT_KEY}, as query and expect here), ` +
            'so the team that owns the data can own its check. Read when each drill starts; a drill whose ConfigMap is ' +
            'missing or lacks a key does not run and says so in a RestoreCheckNotRunnable Event.',
        },
      ),
    ),
  },
  {
    description:
      "What a drill checks besides the restore itself and every user table's row count: a query and the answer it must " +
      'give, inline (query and expect) or from a ConfigMap (configMapRef).',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.configMapRef) ? !has(self.query) && !has(self.expect) : has(self.query) && has(self.expect)',
        message:
          'verify.check needs either both query and expect, e.g. {query: "SELECT count(*) > 0 FROM orders", expect: "t"}, ' +
          'or only configMapRef: {name: <a ConfigMap with keys query and expect>}',
      },
    ],
  },
);

export const RestoreCheckScheduleSchema = Type.String({
  description:
    'When to run a restore drill, as a 5-field cron expression in UTC (as backup.schedule) or @hourly, @daily, ' +
    '@weekly, @monthly, @yearly. A drill restores the newest usable backup into a scratch pod; one owed while there ' +
    'is no backup runs as soon as there is one.',
  maxLength: 128,
  default: DEFAULT_RESTORE_CHECK_SCHEDULE,
  'x-kubernetes-validations': [
    {
      rule: `self.matches('${CRON_SHAPE}')`,
      message:
        'backup.verify.schedule must be a cron expression with 5 fields (minute hour day-of-month month ' +
        'day-of-week), e.g. "0 3 * * *", or one of @hourly, @daily, @weekly, @monthly, @yearly',
    },
  ],
});

export const RESTORE_CHECK_RESOURCES_DESCRIPTION =
  "CPU and memory of the drill's scratch PostgreSQL. Default: requests " +
  `{cpu: ${DEFAULT_RESTORE_CHECK_RESOURCES.requests.cpu}, memory: ${DEFAULT_RESTORE_CHECK_RESOURCES.requests.memory}}, ` +
  `limits {memory: ${DEFAULT_RESTORE_CHECK_RESOURCES.limits.memory}}.`;

export const BACKUP_VERIFY_DESCRIPTION =
  'Restore drills: prove on a schedule that the newest usable backup restores. The operator restores it into a ' +
  "scratch pod (the database's image, restricted Pod Security, no Service, deleted afterwards), reads every user " +
  "table's row count and runs the check, and records the result on the PostgreSQLBackup (status.restoreCheck) and " +
  'in the BackupRestorable condition. The live database, its Service and its data are never touched. ' +
  'Annotate the PostgreSQL exp.wheel.jp/restore-check=<any new value> for a drill now.';
