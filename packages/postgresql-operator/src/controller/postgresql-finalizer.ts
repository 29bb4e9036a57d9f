import {
  ensureFinalizer, hasFinalizer, isAlreadyExists, isForbidden, removeFinalizer, requiredName, requiredNamespace, type ReconcileContext, type ReconcileResult,
} from '@k8s-operators/controller-core';
import { POSTGRESQL_CRD, PostgreSQLBackupRef, PostgreSQLRef } from '../api/postgresql-refs.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import type { ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { readDatabasePassword } from './database-password.ts';
import { servingPod } from './database-pods.ts';
import { desiredBackup, finalBackupName } from '../desired/desired-backup.ts';
import { isFinished } from '../api/backup-lifecycle.ts';
import { newestUsable } from '../desired/desired-postgresql-status.ts';
import { dataClaimName, instanceKey } from '../desired/object-names.ts';
import { releaseDataClaim } from './kept-data-claim.ts';
import { crdBeingRemoved, uninstalling } from './operator-removal.ts';
import { POSTGRESQL_FINALIZER, type OperatorContext } from './operator-context.ts';
import { podsOf } from './operator-indexes.ts';
import { removeDatabaseGauges } from '../metrics/postgresql-metrics.ts';
import { newestFirst } from '../stores/store.ts';

/** While a backup of a database being deleted with `backups: Delete` still runs, look again this often. */
const WAIT_FOR_RUNNING_BACKUP_MS = 5_000;

/** A PostgreSQL being deleted, as its reconcile read and resolved it. */
export interface PostgreSQLBeingDeleted {
  postgresql: PostgreSQL;
  spec: ResolvedPostgreSQLSpec;
  /** Its backups (any phase). */
  backups: readonly PostgreSQLBackup[];
}

/** Adds the finalizer to a live PostgreSQL; returns the object to continue with. */
export function ensurePostgreSQLFinalizer(context: OperatorContext, postgresql: PostgreSQL): Promise<PostgreSQL> {
  return ensureFinalizer(context.manager.client, PostgreSQLRef, postgresql, POSTGRESQL_FINALIZER);
}

/**
 * Deletes a PostgreSQL the safe way, one step per reconcile (each step's outcome wakes the next):
 *
 * 1. `onDelete.finalBackup` (default true): a PostgreSQLBackup with trigger `Final` is taken from the serving pod,
 *    which still runs (its Deployment goes only with the PostgreSQL). Without a serving pod there is nothing newer
 *    than the last backup to save, and the step is skipped with an Event; a failed final backup is reported and the
 *    deletion goes on, since the database is going either way.
 * 2. `onDelete.backups: Delete`: the stored backups and their objects are deleted. `Retain` (the default) keeps them,
 *    so a PostgreSQL created again with the same name restores the newest.
 * 3. The finalizer is removed; the garbage collector then deletes the Deployment, Service and claim.
 *
 * Unless the PostgreSQL is being deleted because its CRD is (the operator is being uninstalled): then nothing of the
 * above happens and its data is kept (`keepForOperatorRemoval`).
 */
export async function finalizePostgreSQL(context: OperatorContext, deleted: PostgreSQLBeingDeleted, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
  const { postgresql, spec, backups } = deleted;
  if (!hasFinalizer(postgresql, POSTGRESQL_FINALIZER)) return undefined;
  const { events, manager } = context;
  const namespace = requiredNamespace(postgresql);
  // Asked on each run of the finalizer, not once: the CRD may be deleted while a final backup is being taken.
  const removedCrd = await crdBeingRemoved(manager.client, [POSTGRESQL_CRD], ctx.signal);
  if (removedCrd !== undefined) return keepForOperatorRemoval(context, deleted, removedCrd, ctx);

  if (spec.backup.onDelete.finalBackup) {
    const name = finalBackupName(postgresql);
    const final = await manager.reader.get(PostgreSQLBackupRef, { namespace, name });
    if (final === undefined) {
      const pod = servingPod(await podsOf(manager, instanceKey(postgresql)));
      const password = await readDatabasePassword(manager.client, namespace, spec.password);
      if (pod !== undefined && password.ok) {
        try {
          await manager.client.create(PostgreSQLBackupRef, desiredBackup(postgresql, name, 'Final'));
          ctx.log.info({ backup: name }, 'taking the final backup before deleting the database');
          // The backup's progress wakes this reconcile (the PostgreSQL watches its backups).
          return undefined;
        } catch (error) {
          if (isAlreadyExists(error)) return undefined;
          // A namespace being deleted refuses new objects: the final backup cannot be recorded, so it is not taken.
          if (!isForbidden(error)) throw error;
          ctx.log.warn({ err: error }, 'the final backup cannot be created (is the namespace being deleted?); deleting without it');
        }
      } else {
        const newest = newestUsable(backups)?.metadata.name;
        events.event(postgresql, {
          type: 'Warning', reason: 'FinalBackupSkipped', action: 'Delete',
          note: `no final backup: ${password.ok ? 'no pod serves the database' : password.message}; ` +
            (newest === undefined ? 'there is no verified backup of it' : `the newest verified backup is ${newest}`),
        });
      }
    } else if (!isFinished(final.status)) {
      return undefined;
    } else if (final.status?.phase === 'Failed') {
      events.event(postgresql, { type: 'Warning', reason: 'FinalBackupFailed', action: 'Delete', note: `the final backup ${name} failed (${final.status.error ?? 'no error recorded'}); deleting the database anyway` });
    }
  }

  if (spec.backup.onDelete.backups === 'Delete') {
    if (backups.some((b) => b.status?.phase === 'Running')) return { requeueAfterMs: WAIT_FOR_RUNNING_BACKUP_MS };
    // The stored dumps first, all of them (also any whose object is gone), then the objects.
    const scope = { namespace, postgresql: requiredName(postgresql) };
    const target = await context.stores.lookup(namespace, spec.backup.s3);
    if (!target.ok) throw new Error(`the stored backups cannot be deleted (backup.onDelete.backups: Delete): the backup store in spec.backup.s3 cannot be used: ${target.message}`);
    const { store } = target;
    const listing = await store.list(scope);
    for (const backup of listing.backups) await store.delete(backup.key);
    for (const { key } of listing.unreadable) await store.delete(key);
    await store.removeIncomplete(scope);
    for (const backup of backups) {
      if (backup.metadata.deletionTimestamp !== undefined) continue;
      await manager.client.delete(PostgreSQLBackupRef, { namespace, name: backup.metadata.name ?? '' });
    }
    events.event(postgresql, { type: 'Normal', reason: 'BackupsDeleted', action: 'Delete', note: `deleted ${listing.backups.length} stored backups and ${backups.length} PostgreSQLBackups (backup.onDelete.backups: Delete)` });
  }

  removeDatabaseGauges(context.metrics, { namespace, postgresql: requiredName(postgresql) });
  await removeFinalizer(manager.client, PostgreSQLRef, postgresql, POSTGRESQL_FINALIZER);
  ctx.log.info('finalizer removed; the database goes with its Deployment');
  return undefined;
}

/**
 * A PostgreSQL deleted with its CRD: nobody asked for this database to go, they removed the operator. No final backup
 * (its PostgreSQLBackup could not be created: that kind is going too), every stored backup kept whatever
 * `onDelete.backups` says, and the data claim kept: the PostgreSQL's owner reference is taken off it before the
 * finalizer goes, so the garbage collector leaves it. The Deployment and Service go: the database stops, its data stays,
 * for a PostgreSQL of the same name to use once the operator is installed again. An Event and a log line say what was
 * kept and why.
 */
async function keepForOperatorRemoval(context: OperatorContext, deleted: PostgreSQLBeingDeleted, crd: string, ctx: ReconcileContext): Promise<undefined> {
  const { postgresql } = deleted;
  const { events, manager } = context;
  const claim = await releaseDataClaim(context, postgresql, dataClaimName(postgresql));
  const newest = await newestKeptBackup(context, deleted);
  events.event(postgresql, {
    type: 'Normal', reason: 'DataKept', action: 'Delete',
    note: `${uninstalling(crd)}: no final backup was taken and every stored backup is kept (backup.onDelete is not applied; ` +
      `${newest.name === undefined ? newest.unknown ?? 'there is no verified backup' : `the newest verified backup is ${newest.name}`}); ` +
      (claim === undefined ? 'there is no data claim to keep (no spec.storage)' : `the data claim ${claim} is kept, no longer owned by the PostgreSQL`) +
      '. Delete them by hand if they are not wanted.',
  });
  ctx.log.info({ crd, dataClaim: claim, newestBackup: newest.name }, 'the operator is being uninstalled: no final backup, the stored backups and the data claim are kept');
  removeDatabaseGauges(context.metrics, { namespace: requiredNamespace(postgresql), postgresql: requiredName(postgresql) });
  await removeFinalizer(manager.client, PostgreSQLRef, postgresql, POSTGRESQL_FINALIZER);
  return undefined;
}

/**
 * The newest verified backup of a PostgreSQL being uninstalled, for the Event that says what was kept: from its
 * PostgreSQLBackups, or, when none is left (the PostgreSQLBackup CRD went first, and its finalizer let them go before
 * this one ran), from the store's manifests, which are written only once a dump is verified. `unknown` says why it could
 * not be told; the uninstall goes on regardless.
 */
async function newestKeptBackup(context: OperatorContext, { postgresql, spec, backups }: PostgreSQLBeingDeleted): Promise<{ name?: string; unknown?: string }> {
  const fromObjects = newestUsable(backups)?.metadata.name;
  if (fromObjects !== undefined) return { name: fromObjects };
  const target = await context.stores.lookup(requiredNamespace(postgresql), spec.backup.s3);
  if (!target.ok) return { unknown: `its backup store cannot be read to name the newest verified backup: ${target.message}` };
  try {
    const listing = await target.store.list({ namespace: requiredNamespace(postgresql), postgresql: requiredName(postgresql) });
    const newest = [...listing.backups].sort(newestFirst)[0];
    return newest === undefined ? {} : { name: newest.key.backup };
  } catch (error) {
    return { unknown: `its backup store cannot be read to name the newest verified backup: ${(error as Error).message}` };
  }
}
