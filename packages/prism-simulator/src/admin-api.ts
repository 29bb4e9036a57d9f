// The simulator's own HTTP endpoints for tests and humans, kept apart from the Prism path so that no
// client can reach them by accident: fault rules and inspection. They need no credentials, are never
// faulted and are not counted in the request log.
//
//   GET    /__sim/inspect          -> SimulatorInspection
//   GET    /__sim/requests         -> { requests: LoggedRequest[] } (the latest REQUEST_LOG_LIMIT, oldest first)
//   GET    /__sim/faults           -> { rules: ActiveFault[] }
//   POST   /__sim/faults           body: a rule or an array of rules -> 201 { ids: string[] }
//   PUT    /__sim/faults           body: { seed?: number, rules?: FaultRule[] } replaces everything -> { rules }
//   DELETE /__sim/faults           -> { rules: [] }
//   DELETE /__sim/faults/{id}      -> 204, or 404 when no such rule

import type { ErrorDetails } from './errors.ts';
import { validateFaultRule, type FaultInjector, type FaultRule } from './faults.ts';
import type { HttpReply } from './http-io.ts';
import type { SimulatorInspection } from './inspection.ts';
import type { LoggedRequest } from './request-stats.ts';
import { isPlainObject } from './schema-validation.ts';

export const ADMIN_BASE_PATH = '/__sim';

export interface AdminDependencies {
  faults: FaultInjector;
  inspect: () => SimulatorInspection;
  /** Each request with its path: what a process outside the simulator (an e2e spec) needs to tell requests apart. */
  requestLog: () => LoggedRequest[];
}

export async function serveAdmin(method: string, path: string, readBody: () => Promise<unknown>, deps: AdminDependencies): Promise<HttpReply> {
  const route = path.slice(ADMIN_BASE_PATH.length).replace(/\/$/, '');
  if (route === '/inspect' && method === 'GET') return { status: 200, json: deps.inspect() };
  if (route === '/requests' && method === 'GET') return { status: 200, json: { requests: deps.requestLog() } };
  if (route === '/faults') {
    switch (method) {
      case 'GET':
        return { status: 200, json: { rules: deps.faults.list() } };
      case 'POST': {
        const body = await readBody();
        const rules = Array.isArray(body) ? (body as unknown[]) : [body];
        const invalid = invalidRules(rules);
        if (invalid) return invalid;
        return { status: 201, json: { ids: rules.map((rule) => deps.faults.add(rule as FaultRule)) } };
      }
      case 'PUT': {
        const body = await readBody();
        if (!isPlainObject(body)) return badRequest({ '': ['expected { "seed"?: number, "rules"?: [...] }'] });
        const { seed, rules = [] } = body;
        if (seed !== undefined && !Number.isInteger(seed)) return badRequest({ seed: ['must be an integer'] });
        if (!Array.isArray(rules)) return badRequest({ rules: ['must be an array'] });
        const invalid = invalidRules(rules as unknown[]);
        if (invalid) return invalid;
        deps.faults.clear();
        if (typeof seed === 'number') deps.faults.reseed(seed);
        for (const rule of rules as FaultRule[]) deps.faults.add(rule);
        return { status: 200, json: { rules: deps.faults.list() } };
      }
      case 'DELETE':
        deps.faults.clear();
        return { status: 200, json: { rules: [] } };
    }
  }
  const ruleId = /^\/faults\/([^/]+)$/.exec(route)?.[1];
  if (ruleId !== undefined && method === 'DELETE') {
    return deps.faults.remove(decodeURIComponent(ruleId)) ? { status: 204 } : { status: 404, json: { error: `no fault rule ${ruleId}` } };
  }
  return { status: 404, json: { error: `no admin endpoint ${method} ${path}` } };
}

function invalidRules(rules: readonly unknown[]): HttpReply | undefined {
  const details: ErrorDetails = {};
  rules.forEach((rule, index) => {
    for (const [path, messages] of Object.entries(validateFaultRule(rule))) details[[`rules.${index}`, path].filter(Boolean).join('.')] = messages;
  });
  return Object.keys(details).length > 0 ? badRequest(details) : undefined;
}

function badRequest(details: ErrorDetails): HttpReply {
  return { status: 400, json: { error: 'invalid fault rules', details } };
}
