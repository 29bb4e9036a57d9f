import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { ManagerOptions } from './manager.ts';

/** A flag problem, said so that the person starting the operator knows what to change. */
export class FlagError extends Error {}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The flags every operator's manager takes (controller-runtime's names), in `parseArgs` form. */
export const MANAGER_FLAG_OPTIONS = {
  'leader-elect': { type: 'string', default: 'true' },
  'health-probe-bind-address': { type: 'string', default: ':8081' },
  'metrics-bind-address': { type: 'string', default: ':8443' },
  'metrics-secure': { type: 'string', default: 'true' },
  'metrics-cert-dir': { type: 'string' },
  namespace: { type: 'string' },
  kubeconfig: { type: 'string' },
  'log-level': { type: 'string', default: 'info' },
  help: { type: 'boolean', default: false },
} as const satisfies ParseArgsOptionsConfig;

/** Their lines of an operator's usage text. */
export const MANAGER_FLAG_USAGE = `  --leader-elect=true|false          run controllers only while holding the Lease (default true)
  --health-probe-bind-address=ADDR   /healthz and /readyz (default :8081)
  --metrics-bind-address=ADDR        /metrics and /debug/queue (default :8443; 0 disables)
  --metrics-secure=true|false        HTTPS, callers authenticated and authorized by the API server (default true);
                                     false: /metrics in plain HTTP to anyone, no /debug/queue
  --metrics-cert-dir=DIR             serve metrics with DIR/tls.crt and DIR/tls.key (default: self-signed at start)
  --namespace=NS                     watch only this namespace (default all; or $WATCH_NAMESPACE)
  --kubeconfig=FILE                  the cluster to manage (default $KUBECONFIG, else in-cluster, else ~/.kube/config)
  --log-level=LEVEL                  debug, info, warn, error (default info; debug logs every reconcile and its reasons)`;

export interface ManagerFlags {
  leaderElect: boolean;
  healthProbeBindAddress: string;
  metricsBindAddress: string;
  metricsSecure: boolean;
  /** Undefined: a self-signed certificate made at start. */
  metricsCertDir: string | undefined;
  namespace: string | undefined;
  /** Undefined: the default loading order (KUBECONFIG, in-cluster, ~/.kube/config). */
  kubeconfig: string | undefined;
  logLevel: LogLevel;
}

/** Parses the manager's flags and an operator's own; a malformed command line is a FlagError. */
export function parseCommandLine<Extra extends ParseArgsOptionsConfig>(argv: readonly string[], extra: Extra) {
  try {
    return parseArgs({ args: [...argv], options: { ...MANAGER_FLAG_OPTIONS, ...extra } }).values;
  } catch (error) {
    throw new FlagError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** Validates the manager's flags; `$WATCH_NAMESPACE` stands in for --namespace. */
export function managerFlags(
  values: {
    'leader-elect': string;
    'health-probe-bind-address': string;
    'metrics-bind-address': string;
    'metrics-secure': string;
    'metrics-cert-dir'?: string | undefined;
    namespace?: string | undefined;
    kubeconfig?: string | undefined;
    'log-level': string;
  },
  env: NodeJS.ProcessEnv,
): ManagerFlags {
  if (values['leader-elect'] !== 'true' && values['leader-elect'] !== 'false') throw new FlagError(`--leader-elect must be true or false, not "${values['leader-elect']}"`);
  if (values['metrics-secure'] !== 'true' && values['metrics-secure'] !== 'false') throw new FlagError(`--metrics-secure must be true or false, not "${values['metrics-secure']}"`);
  if (values['metrics-secure'] === 'false' && values['metrics-cert-dir']) throw new FlagError('--metrics-cert-dir needs --metrics-secure=true: plain HTTP serves no certificate');
  const logLevel = LOG_LEVELS.find((l) => l === values['log-level']);
  if (!logLevel) throw new FlagError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not "${values['log-level']}"`);
  return {
    leaderElect: values['leader-elect'] === 'true',
    healthProbeBindAddress: values['health-probe-bind-address'],
    metricsBindAddress: values['metrics-bind-address'],
    metricsSecure: values['metrics-secure'] === 'true',
    metricsCertDir: values['metrics-cert-dir'] === '' ? undefined : values['metrics-cert-dir'],
    namespace: values.namespace ?? env.WATCH_NAMESPACE,
    kubeconfig: values.kubeconfig === '' ? undefined : values.kubeconfig,
    logLevel,
  };
}

/** The ManagerOptions the manager's flags set: what every operator's main passes to `Manager.create`. */
export function managerOptionsFrom(
  flags: ManagerFlags,
): Pick<ManagerOptions, 'namespace' | 'kubeconfig' | 'leaderElection' | 'healthProbeBindAddress' | 'metricsBindAddress' | 'metricsSecure' | 'metricsCertDir'> {
  return {
    ...(flags.namespace === undefined || flags.namespace === '' ? {} : { namespace: flags.namespace }),
    ...(flags.kubeconfig === undefined ? {} : { kubeconfig: flags.kubeconfig }),
    leaderElection: { enabled: flags.leaderElect },
    healthProbeBindAddress: flags.healthProbeBindAddress,
    metricsBindAddress: flags.metricsBindAddress,
    metricsSecure: flags.metricsSecure,
    ...(flags.metricsCertDir === undefined ? {} : { metricsCertDir: flags.metricsCertDir }),
  };
}

/**
 * An operator's flags, or the process ends: `--help` prints the usage and exits 0; a FlagError prints what to change
 * and the usage and exits 2 (no crash loop with a stack trace for a typo in a Deployment's args).
 */
export function flagsOrExit<Flags>(program: string, usage: string, parse: () => Flags | 'help'): Flags {
  let flags: Flags | 'help';
  try {
    flags = parse();
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`${program}: ${error.message}\n\n${usage}\n`);
    process.exit(2);
  }
  if (flags === 'help') {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return flags;
}
