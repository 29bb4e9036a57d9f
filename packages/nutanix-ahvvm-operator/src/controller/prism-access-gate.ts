import { exponentialDelayMs, type ExponentialDelay } from '@k8s-operators/controller-core';

/**
 * Holds every reconcile back from Prism Central while it refuses the operator's credentials or certificate.
 *
 * Those failures are the operator's, not a resource's: with 500 AhvVms, letting each find out for itself would send
 * 500 failed logins per round — a hot loop, and the way to get a Prism account locked. After the first refusal the
 * gate closes: reconciles report the failure without calling Prism and look again when the gate's delay has passed.
 * Then exactly one reconcile is let through as a probe; its outcome reopens the gate or closes it for twice as long.
 */

export type Admission =
  | { kind: 'open' }
  /** The gate was closed and its delay has passed: this caller tries Prism on behalf of everyone. */
  | { kind: 'probe' }
  | { kind: 'closed'; reason: string; message: string; retryInMs: number };

/** How a reconcile that was admitted ended, as far as access to Prism is concerned. */
export type AccessResult = 'granted' | 'refused' | 'inconclusive';

export interface PrismAccessGateOptions {
  /** How long the gate stays closed after the first refusal. Default 10 s. */
  initialDelayMs?: number;
  /** The longest it stays closed. Default 5 minutes. */
  maxDelayMs?: number;
  /** How soon reconciles that find a probe under way look again. Default 2 s. */
  probeWaitMs?: number;
  now?: () => number;
}

interface Refusal {
  reason: string;
  message: string;
  until: number;
  /** Refusals in a row, one per round: the gate's delay doubles with each. */
  rounds: number;
}

export class PrismAccessGate {
  readonly #delay: ExponentialDelay;
  readonly #probeWaitMs: number;
  readonly #now: () => number;
  #refusal: Refusal | undefined;
  #probing = false;

  constructor(options: PrismAccessGateOptions = {}) {
    this.#delay = { baseDelayMs: options.initialDelayMs ?? 10_000, maxDelayMs: options.maxDelayMs ?? 300_000 };
    this.#probeWaitMs = options.probeWaitMs ?? 2_000;
    this.#now = options.now ?? Date.now;
  }

  admit(): Admission {
    const refusal = this.#refusal;
    if (refusal === undefined) return { kind: 'open' };
    const now = this.#now();
    if (now < refusal.until || this.#probing) {
      const retryInMs = this.#probing ? this.#probeWaitMs : refusal.until - now;
      return { kind: 'closed', reason: refusal.reason, message: refusal.message, retryInMs };
    }
    this.#probing = true;
    return { kind: 'probe' };
  }

  /** How long the gate stays closed from now; 0 when it is open or its delay has passed. */
  closedForMs(): number {
    return this.#refusal === undefined ? 0 : Math.max(0, this.#refusal.until - this.#now());
  }

  /** Reports how an admitted reconcile ended; `reason` and `message` describe a refusal. */
  release(admission: Admission, result: AccessResult, refusal?: { reason: string; message: string }): void {
    if (admission.kind === 'closed') return;
    if (admission.kind === 'probe') this.#probing = false;
    if (result === 'granted') {
      this.#refusal = undefined;
      return;
    }
    if (result === 'refused' && refusal !== undefined) {
      // Several reconciles admitted before the first refusal may each report one; the delay grows once per round.
      const current = this.#refusal;
      if (current !== undefined && this.#now() < current.until) return;
      const rounds = (current?.rounds ?? 0) + 1;
      this.#refusal = { ...refusal, rounds, until: this.#now() + exponentialDelayMs(rounds, this.#delay) };
    }
  }
}
