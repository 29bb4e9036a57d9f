// Idempotence identifiers: the only way to choose a VM's uuid. A client reserves UUIDs with
// POST /idempotence_identifiers and passes one as `metadata.uuid` when it creates the VM; a retried create
// with the same uuid cannot produce a second VM.

import { randomUUID } from 'node:crypto';
import { isoSeconds } from './tasks.ts';
import type { IdempotenceInput } from './vm-schema.ts';

/** The real default validity is undocumented; an hour comfortably covers a create and its retries. */
export const DEFAULT_VALID_MINUTES = 60;

export interface IdempotenceBatch {
  client_identifier?: string;
  count: number;
  expiration_time: string;
  uuid_list: string[];
}

interface Reservation {
  clientIdentifier: string | undefined;
  expiresAt: number;
}

export class IdempotenceRegistry {
  private readonly reservations = new Map<string, Reservation>();
  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  issue(input: IdempotenceInput): IdempotenceBatch {
    const expiresAt = this.now() + (input.valid_duration_in_minutes ?? DEFAULT_VALID_MINUTES) * 60_000;
    const uuids = Array.from({ length: input.count }, () => randomUUID());
    for (const uuid of uuids) this.reservations.set(uuid, { clientIdentifier: input.client_identifier, expiresAt });
    return {
      ...(input.client_identifier === undefined ? {} : { client_identifier: input.client_identifier }),
      count: input.count,
      expiration_time: isoSeconds(expiresAt),
      uuid_list: uuids,
    };
  }

  /** The client's unexpired UUIDs, in the shape POST returned; undefined when it has none. */
  forClient(clientIdentifier: string): IdempotenceBatch | undefined {
    const now = this.now();
    const mine = [...this.reservations].filter(([, r]) => r.clientIdentifier === clientIdentifier && r.expiresAt > now);
    if (mine.length === 0) return undefined;
    const expiresAt = Math.max(...mine.map(([, r]) => r.expiresAt));
    return { client_identifier: clientIdentifier, count: mine.length, expiration_time: isoSeconds(expiresAt), uuid_list: mine.map(([uuid]) => uuid) };
  }

  /** Drops all of a client's UUIDs; false when it had none. */
  deleteClient(clientIdentifier: string): boolean {
    let found = false;
    for (const [uuid, reservation] of this.reservations) {
      if (reservation.clientIdentifier !== clientIdentifier) continue;
      this.reservations.delete(uuid);
      found = true;
    }
    return found;
  }

  /** Whether `uuid` was issued here and has not expired. */
  isValid(uuid: string): boolean {
    const reservation = this.reservations.get(uuid.toLowerCase());
    return reservation !== undefined && reservation.expiresAt > this.now();
  }
}
