import type pg from 'pg';
import { majorOfVersionNum } from './tools-version.ts';

/** Questions the operator asks a running database, through a connected `pg` client. */

export interface ServerVersion {
  /** `server_version`, e.g. "15.18" (a distribution may append more: "15.18 (Debian 15.18-0+deb12u1)"). */
  version: string;
  /** `server_version_num`, e.g. 150018. */
  versionNum: number;
  major: number;
}

export async function serverVersion(client: pg.ClientBase): Promise<ServerVersion> {
  const { rows } = await client.query<{ version: string; version_num: string }>(
    "SELECT current_setting('server_version') AS version, current_setting('server_version_num') AS version_num",
  );
  const row = rows[0];
  if (row === undefined) throw new Error('the server did not report its version');
  const versionNum = Number(row.version_num);
  return { version: row.version, versionNum, major: majorOfVersionNum(versionNum) };
}

/** What `isDatabaseEmpty` found; `found` names at most {@link MAX_REPORTED_OBJECTS} objects, e.g. "table public.orders". */
export interface DatabaseContents {
  empty: boolean;
  found: string[];
}

export const MAX_REPORTED_OBJECTS = 10;

/**
 * A database is EMPTY when it holds nothing a restore could collide with or that could be data:
 *
 * - no schema besides `public` and the system's (`pg_catalog`, `information_schema`, `pg_toast*`, `pg_temp_*` and
 *   `pg_toast_temp_*`, the last two being other sessions' temporary objects);
 * - in any non-system schema (`public` included): no table, partitioned table, view, materialized view, sequence or
 *   foreign table; no function, procedure or aggregate; no type, domain, collation or operator of its own (the row
 *   types of tables and the array and multirange types PostgreSQL creates alongside others are not counted twice);
 * - no extension but `plpgsql` (installed in every new database), no large object, no event trigger, no publication.
 *
 * That is exactly the state `initdb` and the postgres image's `CREATE DATABASE` leave. Settings, default privileges
 * and comments on the database are not objects a dump recreates in a conflicting way, and are ignored. A database that
 * is not empty is never restored into: its data may be the newest there is.
 */
const NON_EMPTY_OBJECTS_SQL = `
WITH user_namespace AS (
  SELECT oid, nspname FROM pg_namespace
  WHERE nspname NOT IN ('pg_catalog', 'information_schema')
    AND nspname NOT LIKE 'pg\\_toast%' AND nspname NOT LIKE 'pg\\_temp\\_%'
)
SELECT kind, name FROM (
  SELECT 1 AS rank, 'schema' AS kind, quote_ident(nspname) AS name FROM user_namespace WHERE nspname <> 'public'
  UNION ALL
  SELECT 2, CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'v' THEN 'view'
              WHEN 'm' THEN 'materialized view' WHEN 'S' THEN 'sequence' ELSE 'foreign table' END,
         quote_ident(n.nspname) || '.' || quote_ident(c.relname)
  FROM pg_class c JOIN user_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
  UNION ALL
  SELECT 3, CASE p.prokind WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' ELSE 'function' END,
         quote_ident(n.nspname) || '.' || quote_ident(p.proname)
  FROM pg_proc p JOIN user_namespace n ON n.oid = p.pronamespace
  UNION ALL
  SELECT 4, CASE t.typtype WHEN 'd' THEN 'domain' ELSE 'type' END,
         quote_ident(n.nspname) || '.' || quote_ident(t.typname)
  FROM pg_type t JOIN user_namespace n ON n.oid = t.typnamespace
  WHERE (t.typrelid = 0 OR (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c')
    AND NOT EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = t.oid)
    AND NOT EXISTS (SELECT 1 FROM pg_range r WHERE r.rngmultitypid = t.oid)
  UNION ALL
  SELECT 5, 'collation', quote_ident(n.nspname) || '.' || quote_ident(o.collname)
  FROM pg_collation o JOIN user_namespace n ON n.oid = o.collnamespace
  UNION ALL
  SELECT 6, 'operator', quote_ident(n.nspname) || '.' || o.oprname
  FROM pg_operator o JOIN user_namespace n ON n.oid = o.oprnamespace
  UNION ALL
  SELECT 7, 'extension', quote_ident(extname) FROM pg_extension WHERE extname <> 'plpgsql'
  UNION ALL
  SELECT 8, 'large object', oid::text FROM pg_largeobject_metadata
  UNION ALL
  SELECT 9, 'event trigger', quote_ident(evtname) FROM pg_event_trigger
  UNION ALL
  SELECT 10, 'publication', quote_ident(pubname) FROM pg_publication
) AS objects
ORDER BY rank, name
LIMIT $1`;

/** Whether the connected database is empty in the sense above, naming what it found when it is not. */
export async function isDatabaseEmpty(client: pg.ClientBase): Promise<DatabaseContents> {
  const { rows } = await client.query<{ kind: string; name: string }>(NON_EMPTY_OBJECTS_SQL, [MAX_REPORTED_OBJECTS]);
  return { empty: rows.length === 0, found: rows.map((row) => `${row.kind} ${row.name}`) };
}
