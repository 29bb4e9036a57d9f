// A Running backup is recorded only once its store says what was published. A store that refuses or cannot be reached
// is asked again STORE_CHECK_INTERVAL_MS later, and after STORE_CHECK_ATTEMPTS refusals the backup fails with the
// store's reason. Until it is recorded, a Running backup keeps every later backup of its database waiting, so a store
// that keeps refusing (its credentials Secret changed after an operator restart, a bucket policy changed) would
// otherwise stop the database's backups for good.

export const STORE_CHECK_ATTEMPTS = 5;
export const STORE_CHECK_INTERVAL_MS = 30_000;

/** Refusals so far, per backup UID, in this process: a new leader counts again from the start. */
export class StoreRefusals {
  readonly #counts = new Map<string, number>();

  /** Counts one more refusal for the backup; returns how many there have been. */
  count(uid: string): number {
    const attempts = (this.#counts.get(uid) ?? 0) + 1;
    this.#counts.set(uid, attempts);
    return attempts;
  }

  forget(uid: string): void {
    this.#counts.delete(uid);
  }
}
