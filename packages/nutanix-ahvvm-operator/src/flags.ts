import { parseArgs } from 'node:util';

export const USAGE = `Usage: nutanix-ahvvm-operator [flags]
  Prism Central is configured by the environment (from the prism-central Secret): PRISM_HOST, PRISM_PORT (9440),
  PRISM_USER, PRISM_PASS, PRISM_CLUSTERUUID or PRISM_CLUSTERNAME, and optionally PRISM_CA_CERT or PRISM_INSECURE=true.

  --leader-elect=true|false              run the controller only while holding the Lease (default true)
  --health-probe-bind-address=ADDR       /healthz and /readyz (default :8081)
  --metrics-bind-address=ADDR            /metrics and /debug/queue (default :8080; 0 disables)
  --namespace=NS                         watch only this namespace (default all; or $WATCH_NAMESPACE)
  --max-concurrent-reconciles=N          AhvVms reconciled at once (default 10)
  --prism-max-concurrent-requests=N      requests in flight to Prism Central at once (default 8)
  --drift-check-interval=DURATION        how often an idle VM is compared with its AhvVm (default 60s)
  --task-poll-interval=DURATION          how often a running Prism task is looked at (default 1s)
  --log-level=LEVEL                      debug, info, warn, error (default info)
  DURATION is a whole number with ms, s or m, e.g. 500ms, 30s, 2m.`;

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface OperatorFlags {
  leaderElect: boolean;
  healthProbeBindAddress: string;
  metricsBindAddress: string;
  namespace: string | undefined;
  maxConcurrentReconciles: number;
  prismMaxConcurrentRequests: number;
  driftCheckIntervalMs: number;
  taskPollIntervalMs: number;
  logLevel: LogLevel;
}

/** A flag problem, said so that the person starting the operator knows what to change. */
export class FlagError extends Error {}

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

/** Parses the command line (and the environment variable that stands in for --namespace). */
export function parseOperatorFlags(argv: readonly string[], env: NodeJS.ProcessEnv): OperatorFlags | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'leader-elect': { type: 'string', default: 'true' },
        'health-probe-bind-address': { type: 'string', default: ':8081' },
        'metrics-bind-address': { type: 'string', default: ':8080' },
        namespace: { type: 'string' },
        'max-concurrent-reconciles': { type: 'string', default: '10' },
        'prism-max-concurrent-requests': { type: 'string', default: '8' },
        'drift-check-interval': { type: 'string', default: '60s' },
        'task-poll-interval': { type: 'string', default: '1s' },
        'log-level': { type: 'string', default: 'info' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new FlagError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  if (values.help) return 'help';
  if (values['leader-elect'] !== 'true' && values['leader-elect'] !== 'false') throw new FlagError(`--leader-elect must be true or false, not "${values['leader-elect']}"`);
  const logLevel = LOG_LEVELS.find((l) => l === values['log-level']);
  if (!logLevel) throw new FlagError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not "${values['log-level']}"`);
  return {
    leaderElect: values['leader-elect'] === 'true',
    healthProbeBindAddress: values['health-probe-bind-address'],
    metricsBindAddress: values['metrics-bind-address'],
    namespace: values.namespace ?? env.WATCH_NAMESPACE,
    maxConcurrentReconciles: count('max-concurrent-reconciles', values['max-concurrent-reconciles']),
    prismMaxConcurrentRequests: count('prism-max-concurrent-requests', values['prism-max-concurrent-requests']),
    driftCheckIntervalMs: duration('drift-check-interval', values['drift-check-interval']),
    taskPollIntervalMs: duration('task-poll-interval', values['task-poll-interval']),
    logLevel,
  };
}
