/**
 * One backup per database at a time, within this process. Across processes, leader election makes this process the
 * only one running backups, and a PostgreSQLBackup's phase records who got there first.
 */
export class DatabaseLocks {
  readonly #holders = new Map<string, string>();

  /** Takes the lock of `database` for `holder`; false when someone else holds it. Taking it again is fine. */
  tryAcquire(database: string, holder: string): boolean {
    const current = this.#holders.get(database);
    if (current !== undefined && current !== holder) return false;
    this.#holders.set(database, holder);
    return true;
  }

  release(database: string, holder: string): void {
    if (this.#holders.get(database) === holder) this.#holders.delete(database);
  }

  holder(database: string): string | undefined {
    return this.#holders.get(database);
  }
}
