import { loadPrismConfig, PrismConfigError, type PrismConfig } from '../config/prism-config.ts';
import { PrismClient, type PrismClientOptions } from '../prism/prism-client.ts';

/**
 * The operator's link to Prism Central, or why there is none. A missing or incomplete `prism-central` Secret is not a
 * reason to crash-loop: the operator runs, and every AhvVm says `Ready=False` reason `ConfigurationError` with the
 * problem, until the Secret is fixed and the operator restarted (the Secret reaches it as environment variables).
 */
export type PrismConnection =
  | {
      configured: true;
      client: PrismClient;
      defaultCluster: PrismConfig['defaultCluster'];
      /** PRISM_INSECURE=true: TLS verification is off, which the operator keeps saying. */
      insecure: boolean;
      /** To be logged at start-up. */
      warnings: readonly string[];
    }
  | { configured: false; problem: string };

export function connectToPrism(
  env: Readonly<Record<string, string | undefined>>,
  options: Omit<PrismClientOptions, 'origin' | 'credentials' | 'tls'> = {},
): PrismConnection {
  let config: PrismConfig;
  try {
    config = loadPrismConfig(env);
  } catch (error) {
    if (!(error instanceof PrismConfigError)) throw error;
    return { configured: false, problem: `${error.message}\nSet these keys in the prism-central Secret of the operator's namespace, then restart the operator.` };
  }
  return {
    configured: true,
    client: PrismClient.fromConfig(config, options),
    defaultCluster: config.defaultCluster,
    insecure: config.tls.insecureSkipVerify,
    warnings: config.warnings,
  };
}
