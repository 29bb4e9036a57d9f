import { loadPrismConfig, PrismConfigError, type PrismConfig } from '../config/prism-config.ts';
import type { PrismClientOptions } from '../prism/prism-client-options.ts';
import { PrismClient } from '../prism/v3/prism-client.ts';
import { PrismV3VmApi } from '../prism/v3/v3-vm-api.ts';
import { PrismV4Client } from '../prism/v4/prism-v4-client.ts';
import { PrismV4VmApi } from '../prism/v4/v4-vm-api.ts';
import type { PrismApiSetting, PrismVmApi } from '../vm/prism-vm-api.ts';

/**
 * The operator's link to Prism Central, or why there is none. A missing or incomplete `prism-central` Secret is not a
 * reason to crash-loop: the operator runs, and every AhvVm says `Ready=False` reason `ConfigurationError` with the
 * problem, until the Secret is fixed and the operator restarted (the Secret reaches it as environment variables).
 */
export type PrismConnection =
  | {
      configured: true;
      /** The v3 client: clusters, images and subnets by name (and the VMs, when the API is v3). */
      client: PrismClient;
      /** What was asked for (`PRISM_API_VERSION` or `--prism-api-version`). */
      apiSetting: PrismApiSetting;
      /** The VM API in use: `auto` asks Prism Central on the first call and keeps the answer for the connection. */
      vms(): Promise<PrismVmApi>;
      defaultCluster: PrismConfig['defaultCluster'];
      /** PRISM_INSECURE=true: TLS verification is off, which the operator keeps saying. */
      insecure: boolean;
      /** To be logged at start-up. */
      warnings: readonly string[];
      close(): Promise<void>;
    }
  | { configured: false; problem: string };

export interface ConnectOptions extends Omit<PrismClientOptions, 'origin' | 'credentials' | 'tls'> {
  /** `--prism-api-version`; overrides `PRISM_API_VERSION`. */
  apiVersion?: PrismApiSetting;
  /** Told which API `auto` chose, once. */
  onApiSelected?: (version: 'v3' | 'v4', setting: PrismApiSetting) => void;
}

export function connectToPrism(env: Readonly<Record<string, string | undefined>>, options: ConnectOptions = {}): PrismConnection {
  let config: PrismConfig;
  try {
    config = loadPrismConfig(env);
  } catch (error) {
    if (!(error instanceof PrismConfigError)) throw error;
    return { configured: false, problem: `${error.message}\nSet these keys in the prism-central Secret of the operator's namespace, then restart the operator.` };
  }
  const { apiVersion, onApiSelected, ...clientOptions } = options;
  const setting = apiVersion ?? config.apiVersion;
  const client = PrismClient.fromConfig(config, clientOptions);
  const v4 = setting === 'v3' ? undefined : PrismV4Client.fromConfig(config, clientOptions);
  return {
    configured: true,
    client,
    apiSetting: setting,
    vms: selectVmApi(setting, client, v4, onApiSelected),
    defaultCluster: config.defaultCluster,
    insecure: config.tls.insecureSkipVerify,
    warnings: config.warnings,
    close: async () => {
      await Promise.all([client.close(), v4?.close()]);
    },
  };
}

/**
 * `v3` and `v4` are what they say. `auto` asks once (`servesV4`: a one-VM v4 list, 200 or 404) and keeps the
 * answer; a probe that fails (Prism unreachable, credentials refused) is not an answer, so the next call asks again
 * and the failure reaches the reconcile that made it, which reports it like any other Prism failure.
 */
export function selectVmApi(
  setting: PrismApiSetting,
  client: PrismClient,
  v4: PrismV4Client | undefined,
  onSelected?: (version: 'v3' | 'v4', setting: PrismApiSetting) => void,
): () => Promise<PrismVmApi> {
  const v3Api = new PrismV3VmApi(client);
  const v4Api = v4 === undefined ? undefined : new PrismV4VmApi(v4);
  if (setting === 'v3' || v4Api === undefined) return () => Promise.resolve(v3Api);
  if (setting === 'v4') return () => Promise.resolve(v4Api);
  let chosen: Promise<PrismVmApi> | undefined;
  return () => {
    chosen ??= (async (): Promise<PrismVmApi> => {
      const api = (await v4?.servesV4()) === true ? v4Api : v3Api;
      onSelected?.(api.version, setting);
      return api;
    })().catch((error: unknown) => {
      chosen = undefined;
      throw error;
    });
    return chosen;
  };
}
