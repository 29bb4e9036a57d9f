import type { Gauge } from 'prom-client';

/** The `ahvvm_vms{state}` value of a resource whose VM does not exist (yet). */
export const ABSENT_STATE = 'Absent';

/**
 * Keeps `ahvvm_vms{state}` at the number of AhvVm resources whose VM Prism shows in each state, from what each
 * reconcile last saw. Counts move by one per change, so a reconcile costs the same with 10 resources or 10,000.
 */
export class VmStateGauge {
  readonly #gauge: Gauge<'state'>;
  readonly #stateOf = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  constructor(gauge: Gauge<'state'>) {
    this.#gauge = gauge;
  }

  set(key: string, state: string): void {
    const previous = this.#stateOf.get(key);
    if (previous === state) return;
    if (previous !== undefined) this.#add(previous, -1);
    this.#stateOf.set(key, state);
    this.#add(state, 1);
  }

  delete(key: string): void {
    const previous = this.#stateOf.get(key);
    if (previous === undefined) return;
    this.#stateOf.delete(key);
    this.#add(previous, -1);
  }

  #add(state: string, delta: number): void {
    const count = (this.#counts.get(state) ?? 0) + delta;
    this.#counts.set(state, count);
    this.#gauge.set({ state }, count);
  }
}
