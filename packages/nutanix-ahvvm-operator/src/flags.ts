import { managerFlags, MANAGER_FLAG_USAGE, parseCommandLine, FlagError, type ManagerFlags } from '@k8s-operators/controller-core';

export const USAGE = `Usage: nutanix-ahvvm-operator [flags]
  Prism Central is configured by the environment (from the prism-central Secret): PRISM_HOST, PRISM_PORT (9440),
  PRISM_USER and PRISM_PASS (or PRISM_API_KEY, a service account's API key), PRISM_CLUSTERUUID or PRISM_CLUSTERNAME,
  and optionally PRISM_CA_CERT or PRISM_INSECURE=true.

  --max-concurrent-reconciles=N          AhvVms reconciled at once (default 10)
  --prism-max-concurrent-requests=N      requests in flight to Prism Central at once (default 8)
  --drift-check-interval=DURATION        how often an idle VM is compared with its AhvVm (default 60s)
  --task-poll-interval=DURATION          how often a running Prism task is looked at (default 1s)
  --prism-api-version=v3|v4|auto         Prism Central API for VMs (default $PRISM_API_VERSION, else auto: v4
                                         where the Prism Central serves VMM v4.2, else v3)
${MANAGER_FLAG_USAGE}
  DURATION is a whole number with ms, s or m, e.g. 500ms, 30s, 2m.`;

export { FlagError };

export interface OperatorFlags extends ManagerFlags {
  maxConcurrentReconciles: number;
  prismMaxConcurrentRequests: number;
  driftCheckIntervalMs: number;
  taskPollIntervalMs: number;
  /** Undefined: `PRISM_API_VERSION` decides (default auto). */
  prismApiVersion: 'v3' | 'v4' | 'auto' | undefined;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000 };

function duration(flag: string, text: string): number {
  const match = /^(\d+)(ms|s|m)$/.exec(text);
  const ms = match === null ? 0 : Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
  if (ms <= 0) throw new FlagError(`--${flag} must be a positive duration such as 500ms, 30s or 2m, not "${text}"`);
  return ms;
}

function count(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1) throw new FlagError(`--${flag} must be a whole number of at least 1, not "${text}"`);
  return n;
}

function apiVersion(text: string | undefined): OperatorFlags['prismApiVersion'] {
  if (text === undefined) return undefined;
  if (text === 'v3' || text === 'v4' || text === 'auto') return text;
  throw new FlagError(`--prism-api-version must be v3, v4 or auto, not "${text}"`);
}

/** Parses the command line (and the environment variable that stands in for --namespace). */
export function parseOperatorFlags(argv: readonly string[], env: NodeJS.ProcessEnv): OperatorFlags | 'help' {
  const values = parseCommandLine(argv, {
    'max-concurrent-reconciles': { type: 'string', default: '10' },
    'prism-max-concurrent-requests': { type: 'string', default: '8' },
    'drift-check-interval': { type: 'string', default: '60s' },
    'task-poll-interval': { type: 'string', default: '1s' },
    'prism-api-version': { type: 'string' },
  });
  if (values.help) return 'help';
  return {
    ...managerFlags(values, env),
    maxConcurrentReconciles: count('max-concurrent-reconciles', values['max-concurrent-reconciles']),
    prismMaxConcurrentRequests: count('prism-max-concurrent-requests', values['prism-max-concurrent-requests']),
    driftCheckIntervalMs: duration('drift-check-interval', values['drift-check-interval']),
    taskPollIntervalMs: duration('task-poll-interval', values['task-poll-interval']),
    prismApiVersion: apiVersion(values['prism-api-version']),
  };
}
