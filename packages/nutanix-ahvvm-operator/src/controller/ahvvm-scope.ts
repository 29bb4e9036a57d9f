import { nextStatus } from '@k8s-operators/controller-core';
import type { AhvVm, AhvVmStatus } from '../api/ahvvm-resource.ts';
import { nextAhvVmStatus, readyReasonOf, type Outcome, type StatusFields } from './ahvvm-status.ts';
import type { FencedStatusWriter } from './fenced-status-writer.ts';

/**
 * One reconcile's view of its AhvVm: the object as last read or written, and the status writes that move it on. Each
 * write is fenced on the version the reconcile holds, and the stored object becomes the next write's base, so a
 * reconcile that writes twice never races itself.
 */
export class AhvVmScope {
  avm: AhvVm;
  /** Set once the finalizer is gone and the object with it. */
  released = false;
  readonly #writer: FencedStatusWriter;
  readonly #now: () => Date;

  constructor(avm: AhvVm, writer: FencedStatusWriter, now: () => Date) {
    this.avm = avm;
    this.#writer = writer;
    this.#now = now;
  }

  get status(): AhvVmStatus {
    return this.avm.status ?? {};
  }

  /** Writes the outcome as conditions, with `fields`. Returns whether the Ready reason changed (a new situation). */
  async report(outcome: Outcome, fields: StatusFields = {}): Promise<boolean> {
    const before = readyReasonOf(this.avm);
    this.avm = await this.#writer.write(this.avm, nextAhvVmStatus(this.avm, outcome, fields, this.#now()));
    return readyReasonOf(this.avm) !== before;
  }

  /** Writes `fields` and leaves the conditions as they are. */
  async record(fields: StatusFields): Promise<void> {
    this.avm = await this.#writer.write(this.avm, nextStatus<AhvVmStatus>(this.avm.status, { fields }));
  }
}
