import { nextStatus, type StatusWriter } from '@k8s-operators/controller-core';
import { AhvVmRef } from '../api/ahvvm-ref.ts';
import type { AhvVm, AhvVmStatus } from '../api/ahvvm-resource.ts';
import { resolveAhvVmSpec, type ResolvedAhvVmSpec } from '../api/resolved-ahvvm-spec.ts';
import { desiredAhvVmStatus, readyReasonOf, type Outcome, type StatusFields } from '../desired/desired-ahvvm-status.ts';

/**
 * One reconcile's view of its AhvVm: the object as last read or written, and the status writes that move it on.
 *
 * An AhvVm's status is not only a report: it is the operator's memory (the reserved VM UUID, the task in flight, a
 * power cycle half done). A status computed from an object that has not seen the previous write would drop it, and a
 * reconcile that then finds no UUID creates a second VM (CAPX PR #767). So each write is fenced on the version the
 * reconcile holds (409 Conflict if the object changed since; the reconcile fails before it sends anything to Prism),
 * and the stored object becomes the next write's base, so a reconcile that writes twice never races itself. The
 * manager's reader returns our own writes while the cache lags, so a fence rarely meets our own previous write.
 */
export class AhvVmScope {
  avm: AhvVm;
  /**
   * The spec with its defaults applied, resolved once as the reconcile starts. Status writes return the object with
   * the same spec: one that changed meanwhile fails the fenced write instead.
   */
  readonly spec: ResolvedAhvVmSpec;
  /** Set once the finalizer is gone and the object with it. */
  released = false;
  readonly #writer: StatusWriter;
  readonly #now: () => Date;

  constructor(avm: AhvVm, writer: StatusWriter, now: () => Date) {
    this.avm = avm;
    this.spec = resolveAhvVmSpec(avm.spec);
    this.#writer = writer;
    this.#now = now;
  }

  get status(): AhvVmStatus {
    return this.avm.status ?? {};
  }

  /** Writes the outcome as conditions, with `fields`. Returns whether the Ready reason changed (a new situation). */
  async report(outcome: Outcome, fields: StatusFields = {}): Promise<boolean> {
    const before = readyReasonOf(this.avm);
    this.avm = await this.#writer.write(AhvVmRef, this.avm, desiredAhvVmStatus(this.avm, outcome, fields, this.#now()), { fenced: true });
    return readyReasonOf(this.avm) !== before;
  }

  /** Writes `fields` and leaves the conditions as they are. */
  async record(fields: StatusFields): Promise<void> {
    this.avm = await this.#writer.write(AhvVmRef, this.avm, nextStatus<AhvVmStatus>(this.avm.status, { fields }), { fenced: true });
  }
}
