import { REST_CLIENT_DURATION_BUCKETS } from '@k8s-operators/controller-core';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PrismMetricsSink } from '../prism/prism-metrics-sink.ts';

/**
 * The operator's own metrics, next to controller-core's controller-runtime ones on the same registry:
 *
 * | metric | type | labels | meaning |
 * |---|---|---|---|
 * | `prism_requests_total` | counter | method, endpoint, code | HTTP attempts to Prism Central; `endpoint` is the path template (`/vms/{uuid}`), `code` the status or `<error>` when no answer came |
 * | `prism_request_duration_seconds` | histogram | method, endpoint | time per attempt, answer body included |
 * | `prism_tasks_total` | counter | operation, result | Prism tasks waited for, by what they did and how they ended (`succeeded`, `failed`, `aborted`) |
 * | `ahvvm_vms` | gauge | state | AhvVm resources by the Prism state of their VM (`COMPLETE`, `ERROR`, …, `Absent` before creation); set by the reconciler |
 */
export interface AhvVmMetrics extends PrismMetricsSink {
  readonly prismRequests: Counter<'method' | 'endpoint' | 'code'>;
  readonly prismRequestDuration: Histogram<'method' | 'endpoint'>;
  readonly prismTasks: Counter<'operation' | 'result'>;
  readonly vms: Gauge<'state'>;
}

/** Registers the metrics above on `registry` (call once per registry) and returns them, usable as the client's sink. */
export function registerAhvVmMetrics(registry: Registry): AhvVmMetrics {
  const registers = [registry];
  const prismRequests = new Counter({
    name: 'prism_requests_total',
    help: 'HTTP requests to Prism Central by method, endpoint template and status code (<error> when no answer came back)',
    labelNames: ['method', 'endpoint', 'code'] as const,
    registers,
  });
  const prismRequestDuration = new Histogram({
    name: 'prism_request_duration_seconds',
    help: 'Duration of HTTP requests to Prism Central by method and endpoint template',
    labelNames: ['method', 'endpoint'] as const,
    buckets: [...REST_CLIENT_DURATION_BUCKETS],
    registers,
  });
  const prismTasks = new Counter({
    name: 'prism_tasks_total',
    help: 'Prism Central tasks the operator waited for, by operation and final status',
    labelNames: ['operation', 'result'] as const,
    registers,
  });
  const vms = new Gauge({
    name: 'ahvvm_vms',
    help: 'AhvVm resources by the Prism state of their VM',
    labelNames: ['state'] as const,
    registers,
  });
  return {
    prismRequests,
    prismRequestDuration,
    prismTasks,
    vms,
    requestFinished({ method, endpoint, code }, durationSeconds) {
      prismRequests.inc({ method, endpoint, code });
      prismRequestDuration.observe({ method, endpoint }, durationSeconds);
    },
    taskFinished({ operation, result }) {
      prismTasks.inc({ operation, result });
    },
  };
}

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
