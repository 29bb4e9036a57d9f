import type { Controller, Manager } from '@k8s-operators/controller-core';
import { operatorContext, type OperatorOptions } from './operator-context.ts';
import { setupBackupController } from './postgresql-backup-controller.ts';
import { setupPostgreSQLController } from './postgresql-controller.ts';
import { setupRestoreCheckController } from './restore-check-controller.ts';

/** Registers the controllers (PostgreSQL, PostgreSQLBackup, restore drills) on `manager`, sharing caches, the backup store, writers, metrics and the backup lock. */
export function setupControllers(manager: Manager, options: OperatorOptions): { postgresql: Controller; backups: Controller; restoreChecks: Controller } {
  const context = operatorContext(manager, options);
  return { postgresql: setupPostgreSQLController(context), backups: setupBackupController(context), restoreChecks: setupRestoreCheckController(context) };
}
