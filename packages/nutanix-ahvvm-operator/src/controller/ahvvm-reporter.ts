import type { EventDetails } from '@k8s-operators/controller-core';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { AhvVmScope } from './ahvvm-scope.ts';
import type { Outcome, StatusFields } from '../desired/desired-ahvvm-status.ts';
import type { PrismConnection } from './prism-connection.ts';

export interface AhvVmEvents {
  event(regarding: KubernetesObject, details: EventDetails): void;
}

/** Tells users what a reconcile did or found: Events on the AhvVm, and problems in its status. */
export class AhvVmReporter {
  readonly #events: AhvVmEvents;
  /** Resources told that TLS verification is off, so each hears it once per operator run rather than per reconcile. */
  readonly #warnedInsecure = new Set<string>();

  constructor(events: AhvVmEvents) {
    this.#events = events;
  }

  event(scope: AhvVmScope, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void {
    this.#events.event(scope.avm, { type, reason, action, note });
  }

  /** Reports a problem, with a Warning Event when it is a new one (not on every reconcile that finds it again). */
  async problem(scope: AhvVmScope, outcome: Outcome, action: string, fields: StatusFields = {}): Promise<void> {
    if (await scope.report(outcome, fields)) this.event(scope, 'Warning', outcome.reason, action, outcome.message);
  }

  warnIfInsecure(scope: AhvVmScope, prism: Extract<PrismConnection, { configured: true }>): void {
    const uid = scope.avm.metadata.uid;
    if (!prism.insecure || uid === undefined || this.#warnedInsecure.has(uid)) return;
    this.#warnedInsecure.add(uid);
    this.event(scope, 'Warning', 'InsecureConnection', 'Connect', prism.warnings.join(' '));
  }
}
