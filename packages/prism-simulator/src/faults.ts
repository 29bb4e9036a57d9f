// Fault injection: rules that delay, fail, rate-limit or drop requests, and slow down or fail tasks.
// Rules are evaluated in the order they were added. `probability` draws from a seeded generator, so a run
// with the same seed and the same sequence of requests sees the same faults; `times` limits a rule to its
// next N firings, after which it disappears.

import type { ErrorDetails } from './errors.ts';
import { SIMULATED_ENDPOINTS, type SimulatedEndpoint } from './prism-endpoints.ts';
import { validate, type ObjectSchema, type Schema } from './schema-validation.ts';
import type { TaskFailure, TaskFaultDecision, TaskFaultSource, TaskOperation } from './tasks.ts';

interface FaultLimits {
  /** Chance that a matching request or task is hit, 0..1; default 1. */
  probability?: number;
  /** Hit only the next N matching requests or tasks; default unlimited. */
  times?: number;
}

/**
 * When a request fault strikes: `before` the request is handled (nothing happened on the server), or
 * `after` it was handled (the VM was created, but the client never learns of it).
 */
export type FaultPhase = 'before' | 'after';

/** Adds `latencyMs` before the request is handled. Latency rules add up. */
export interface LatencyFault extends FaultLimits {
  kind: 'latency';
  endpoint?: SimulatedEndpoint;
  latencyMs: number;
}

/** Answers with a 5xx and an INTERNAL_ERROR body (v3 or v4 shaped, by the path). */
export interface ErrorFault extends FaultLimits {
  kind: 'error';
  endpoint?: SimulatedEndpoint;
  /** 500..599, default 500. */
  status?: number;
  phase?: FaultPhase;
}

/** Answers 429 with `Retry-After` (v3's 429 behaviour is undocumented; v4 uses 429). */
export interface RateLimitFault extends FaultLimits {
  kind: 'rate-limit';
  endpoint?: SimulatedEndpoint;
  /** Default 1. */
  retryAfterSeconds?: number;
}

/** Destroys the connection without any response. */
export interface DropFault extends FaultLimits {
  kind: 'drop';
  endpoint?: SimulatedEndpoint;
  phase?: FaultPhase;
}

/** Makes matching tasks take `extraMs` longer. */
export interface SlowTaskFault extends FaultLimits {
  kind: 'slow-task';
  operation?: TaskOperation;
  extraMs: number;
}

/** Makes matching tasks end FAILED (a failed create leaves no VM; a failed update leaves it in ERROR). */
export interface TaskFailureFault extends FaultLimits {
  kind: 'task-failure';
  operation?: TaskOperation;
  /** Default `INTERNAL_ERROR`. */
  errorCode?: string;
  /** Default `INTERNAL_ERROR: ErrorCode: 9`, the error_detail of a real failed task (TF issue #289). */
  errorDetail?: string;
}

export type FaultRule = LatencyFault | ErrorFault | RateLimitFault | DropFault | SlowTaskFault | TaskFailureFault;

/** A rule as it is held: with its id and how often it has fired. */
export type ActiveFault = FaultRule & { id: string; fired: number };

/** The public face of fault injection, for tests in other packages (and the /__sim/faults endpoint). */
export interface FaultController {
  /** Adds a rule and returns its id. Throws on an invalid rule. */
  add(rule: FaultRule): string;
  remove(id: string): boolean;
  clear(): void;
  list(): ActiveFault[];
  /** Restarts the random sequence that `probability` draws from. */
  reseed(seed: number): void;
}

export type RequestAction = { kind: 'error'; status: number } | { kind: 'rate-limit'; retryAfterSeconds: number } | { kind: 'drop' };

export interface RequestFaultDecision {
  latencyMs: number;
  before: RequestAction | undefined;
  after: Exclude<RequestAction, { kind: 'rate-limit' }> | undefined;
}

const DEFAULT_TASK_FAILURE: TaskFailure = { errorCode: 'INTERNAL_ERROR', errorDetail: 'INTERNAL_ERROR: ErrorCode: 9' };

export class InvalidFaultRuleError extends Error {
  readonly details: ErrorDetails;

  constructor(details: ErrorDetails) {
    super(`invalid fault rule: ${JSON.stringify(details)}`);
    this.name = 'InvalidFaultRuleError';
    this.details = details;
  }
}

export class FaultInjector implements FaultController, TaskFaultSource {
  private rules: ActiveFault[] = [];
  private random: () => number;
  private nextId = 1;

  constructor(seed = 1, rules: readonly FaultRule[] = []) {
    this.random = seededRandom(seed);
    for (const rule of rules) this.add(rule);
  }

  add(rule: FaultRule): string {
    const details = validateFaultRule(rule);
    if (Object.keys(details).length > 0) throw new InvalidFaultRuleError(details);
    const id = `fault-${this.nextId}`;
    this.nextId += 1;
    this.rules.push({ ...rule, id, fired: 0 });
    return id;
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((rule) => rule.id !== id);
    return this.rules.length !== before;
  }

  clear(): void {
    this.rules = [];
  }

  list(): ActiveFault[] {
    return this.rules.map((rule) => ({ ...rule }));
  }

  reseed(seed: number): void {
    this.random = seededRandom(seed);
  }

  /** Decides what happens to one request to `endpoint`. */
  decideRequest(endpoint: SimulatedEndpoint | undefined): RequestFaultDecision {
    const decision: RequestFaultDecision = { latencyMs: 0, before: undefined, after: undefined };
    const matching = [...this.rules].filter((rule) =>
      rule.kind !== 'slow-task' && rule.kind !== 'task-failure' && (rule.endpoint === undefined || rule.endpoint === endpoint));
    const phaseOf = (rule: (typeof matching)[number]): 'before' | 'after' | undefined =>
      rule.kind === 'error' || rule.kind === 'drop' ? (rule.phase ?? 'before') : rule.kind === 'rate-limit' ? 'before' : undefined;
    for (const rule of matching) {
      if (rule.kind === 'latency' && this.fires(rule)) decision.latencyMs += rule.latencyMs;
    }
    // Faults after serving are drawn only for a request that is served: one answered by a fault before it never
    // reaches them, so it must not use up one of their `times` either.
    for (const phase of ['before', 'after'] as const) {
      if (phase === 'after' && decision.before !== undefined) break;
      for (const rule of matching) {
        if (phaseOf(rule) !== phase) continue;
        if (decision[phase] !== undefined || !this.fires(rule)) continue;
        if (rule.kind === 'rate-limit') decision.before = { kind: 'rate-limit', retryAfterSeconds: rule.retryAfterSeconds ?? 1 };
        else decision[phase] = rule.kind === 'error' ? { kind: 'error', status: rule.status ?? 500 } : { kind: 'drop' };
      }
    }
    return decision;
  }

  decideTask(operation: TaskOperation): TaskFaultDecision {
    const decision: TaskFaultDecision = { extraMs: 0, failure: undefined };
    for (const rule of [...this.rules]) {
      if (rule.kind !== 'slow-task' && rule.kind !== 'task-failure') continue;
      if (rule.operation !== undefined && rule.operation !== operation) continue;
      if (rule.kind === 'slow-task') {
        if (this.fires(rule)) decision.extraMs += rule.extraMs;
      } else if (decision.failure === undefined && this.fires(rule)) {
        decision.failure = { errorCode: rule.errorCode ?? DEFAULT_TASK_FAILURE.errorCode, errorDetail: rule.errorDetail ?? DEFAULT_TASK_FAILURE.errorDetail };
      }
    }
    return decision;
  }

  /** Draws for one matching rule and uses up one of its `times` when it fires. */
  private fires(rule: ActiveFault): boolean {
    const probability = rule.probability ?? 1;
    if (probability < 1 && this.random() >= probability) return false;
    rule.fired += 1;
    if (rule.times !== undefined && rule.fired >= rule.times) this.remove(rule.id);
    return true;
  }
}

/** mulberry32: small and fast; reproducibility is all that is needed here. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const limits: Record<string, Schema> = {
  probability: { type: 'number', minimum: 0, maximum: 1 },
  times: { type: 'integer', minimum: 1 },
};
const endpoint: Schema = { type: 'string', enum: SIMULATED_ENDPOINTS };
const operation: Schema = { type: 'string', enum: ['create', 'update', 'delete'] };
const phase: Schema = { type: 'string', enum: ['before', 'after'] };

function ruleSchema(kind: FaultRule['kind'], properties: Record<string, Schema>, required: string[] = []): ObjectSchema {
  return {
    type: 'object',
    required: ['kind', ...required],
    additionalProperties: false,
    properties: { kind: { type: 'string', enum: [kind] }, ...limits, ...properties },
  };
}

const RULE_SCHEMAS: Record<FaultRule['kind'], ObjectSchema> = {
  latency: ruleSchema('latency', { endpoint, latencyMs: { type: 'integer', minimum: 0 } }, ['latencyMs']),
  error: ruleSchema('error', { endpoint, status: { type: 'integer', minimum: 500, maximum: 599 }, phase }),
  'rate-limit': ruleSchema('rate-limit', { endpoint, retryAfterSeconds: { type: 'integer', minimum: 0 } }),
  drop: ruleSchema('drop', { endpoint, phase }),
  'slow-task': ruleSchema('slow-task', { operation, extraMs: { type: 'integer', minimum: 0 } }, ['extraMs']),
  'task-failure': ruleSchema('task-failure', { operation, errorCode: { type: 'string', minLength: 1 }, errorDetail: { type: 'string', minLength: 1 } }),
};

/** Checks a rule that may come from JSON (the admin endpoint or a config file). Empty means valid. */
export function validateFaultRule(value: unknown): ErrorDetails {
  const kind = typeof value === 'object' && value !== null && 'kind' in value ? value.kind : undefined;
  const schema = typeof kind === 'string' && kind in RULE_SCHEMAS ? RULE_SCHEMAS[kind as FaultRule['kind']] : undefined;
  if (!schema) return { kind: [`${JSON.stringify(kind ?? null)} is not one of [${Object.keys(RULE_SCHEMAS).map((k) => `'${k}'`).join(', ')}]`] };
  return validate(schema, value);
}
