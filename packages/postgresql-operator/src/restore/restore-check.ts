import type pg from 'pg';
import type { RestoreCheckQuery } from '../api/resolved-postgresql-spec.ts';
import { withConnection, type ConnectionParameters } from '../postgres/connection.ts';
import type { DiscoverOptions } from '../postgres/tools-version.ts';
import type { BackupManifest } from '../stores/manifest.ts';
import type { BackupStore } from '../stores/store.ts';
import { restoreBackup, type RestoreReport } from './restore-backup.ts';
import type { IdentitySource } from './backup-decryption.ts';

/**
 * A restore drill's work on its scratch server: the backup restored exactly as a new database pod is restored
 * (`restoreBackup`: checksum first, one transaction, pg_restore of the server's major), then read back: every user
 * table's rows counted (a count reads every row of the table), and the check query, if any, answered. Whether the
 * answers pass is the verdict's to decide (restore-check-verdict.ts); errors are thrown as they come.
 */

export interface TableRowCount {
  /** `schema.table`, quoted where SQL needs it. */
  table: string;
  rows: number;
}

export interface RestoredDatabaseAnswers {
  tables: TableRowCount[];
  /** The check query's answer, as `psql -At` prints it; absent without a check query. */
  answer?: string;
}

/** A check query that failed on the restored database (an error of the query, not of the connection). */
export class CheckQueryError extends Error {
  override name = 'CheckQueryError';
}

/** A check longer than this is cut off: a drill checks, it does not run a workload. */
const CHECK_STATEMENT_TIMEOUT = '10min';

const USER_TABLES_SQL = `
SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'
ORDER BY 1`;

/** Every user table's row count (a partitioned table counts its partitions' rows once, as itself). */
export async function countRows(client: pg.ClientBase): Promise<TableRowCount[]> {
  const { rows: tables } = await client.query<{ table: string }>(USER_TABLES_SQL);
  const counts: TableRowCount[] = [];
  for (const { table } of tables) {
    const { rows } = await client.query<{ rows: string }>(`SELECT count(*) AS rows FROM ${table}`);
    counts.push({ table, rows: Number(rows[0]?.rows ?? 0) });
  }
  return counts;
}

/** Values as PostgreSQL prints them (`t`, `42`, `2026-01-02`), not as JavaScript values. */
const AS_TEXT = { getTypeParser: () => (value: string) => value };

/** The query's answer as `psql -At` prints it: columns joined by '|', one line per row, NULL as empty. */
export async function answerCheckQuery(client: pg.ClientBase, query: string): Promise<string> {
  const result = await client.query<unknown[]>({ text: query, rowMode: 'array', types: AS_TEXT });
  // A multi-statement query answers with its last result, as psql prints the last.
  const last = Array.isArray(result) ? (result as pg.QueryArrayResult[]).at(-1) : result;
  return (last?.rows ?? []).map((row) => row.map((value) => (value === null ? '' : String(value))).join('|')).join('\n');
}

/**
 * An error the server answered a query with (a SQLSTATE), other than a lost connection (class 08) or a server shutting
 * down (57P0x): the data cannot answer the query. A socket error has no SQLSTATE.
 */
function isQueryError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57P)/.test(code);
}

/** Reads the restored database back in a read-only transaction, as the PostgreSQL's own user. */
export async function readRestoredDatabase(connection: ConnectionParameters, check: RestoreCheckQuery | undefined): Promise<RestoredDatabaseAnswers> {
  return withConnection(connection, async (client) => {
    await client.query('BEGIN READ ONLY');
    await client.query(`SET LOCAL statement_timeout = '${CHECK_STATEMENT_TIMEOUT}'`);
    try {
      const tables = await countRows(client);
      return check === undefined ? { tables } : { tables, answer: await answerCheckQuery(client, check.query) };
    } catch (error) {
      if (isQueryError(error)) throw new CheckQueryError(`the check failed on the restored database: ${(error as Error).message}`, { cause: error });
      throw error;
    }
  });
}

export interface RestoreCheckRequest {
  store: BackupStore;
  backup: BackupManifest;
  /** The scratch server's address and credentials, with `database` = `spec.db`. */
  connection: ConnectionParameters;
  /** `spec.user`: owns what is restored, and runs the check. */
  role: string;
  check?: RestoreCheckQuery;
  signal?: AbortSignal;
  tools?: DiscoverOptions;
  identity?: IdentitySource;
}

/** Restores `backup` into the scratch server and reads it back. */
export async function restoreAndRead(request: RestoreCheckRequest): Promise<{ restore: RestoreReport; answers: RestoredDatabaseAnswers }> {
  const { check, ...restoring } = request;
  const restore = await restoreBackup(restoring);
  const answers = await readRestoredDatabase(request.connection, check);
  return { restore, answers };
}
