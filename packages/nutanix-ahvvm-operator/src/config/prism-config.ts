import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { API_KEY_HEADER, PrismApiKey, PrismCredentials, type PrismAuthentication } from './prism-credentials.ts';

/**
 * The connection to Prism Central, configured through the environment as in the seed (`PRISM_HOST`, `PRISM_PORT`,
 * `PRISM_USER`, `PRISM_PASS`, `PRISM_CLUSTERNAME`, `PRISM_CLUSTERUUID`), plus TLS settings the seed lacked: the seed
 * turned verification off for everyone; here it is on unless `PRISM_INSECURE=true` says otherwise. Instead of
 * `PRISM_USER` and `PRISM_PASS`, `PRISM_API_KEY` may hold the API key of a Prism Central service account.
 */
export interface PrismConfig {
  /** Host name or IP address of Prism Central. */
  host: string;
  /** Default 9440, Prism's port. */
  port: number;
  /** `https://<host>:<port>`; the v3 API is below `/api/nutanix/v3`. */
  origin: string;
  /** `PRISM_USER` and `PRISM_PASS` (Basic), or `PRISM_API_KEY` (sent as `X-ntnx-api-key`). */
  credentials: PrismAuthentication;
  /** The cluster VMs are placed on when an AhvVm names none: by UUID when given (preferred), else by name. */
  defaultCluster: { uuid?: string; name?: string };
  tls: {
    /** PEM of a CA to trust in addition to the system's roots (`PRISM_CA_CERT`). */
    caCertPem?: string;
    /** `PRISM_INSECURE=true`: no certificate verification at all. */
    insecureSkipVerify: boolean;
  };
  /**
   * `PRISM_API_VERSION`: which API the operator uses for VMs — `v3`, `v4` (VMM v4.2), or `auto` (the default: v4 when
   * the Prism Central serves it, asked once per connection, else v3). The `--prism-api-version` flag overrides it.
   */
  apiVersion: 'v3' | 'v4' | 'auto';
  /** Things the operator must log (and may record as events) at start-up, e.g. that TLS verification is off. */
  warnings: string[];
}

export class PrismConfigError extends Error {
  override name = 'PrismConfigError';
}

export const DEFAULT_PRISM_PORT = 9440;
const API_VERSIONS: readonly string[] = ['v3', 'v4', 'auto'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** A variable's value, with surrounding whitespace (a stray newline from a Secret) removed; empty counts as unset. */
function read(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** What a key can be to travel unchanged as a header value: visible ASCII, no spaces. */
const API_KEY_TEXT = /^[\x21-\x7e]+$/;

/**
 * Reads and checks the configuration. Every problem is reported at once, each naming its variable; no message ever
 * contains the value of `PRISM_PASS` or `PRISM_API_KEY`.
 */
export function loadPrismConfig(env: Readonly<Record<string, string | undefined>>): PrismConfig {
  const problems: string[] = [];
  const host = read(env, 'PRISM_HOST');
  const user = read(env, 'PRISM_USER');
  // The password is taken as given: leading or trailing spaces may be part of it.
  const password = env.PRISM_PASS === '' ? undefined : env.PRISM_PASS;
  const portText = read(env, 'PRISM_PORT');
  const clusterUuid = read(env, 'PRISM_CLUSTERUUID');
  const clusterName = read(env, 'PRISM_CLUSTERNAME');
  const caCertPem = read(env, 'PRISM_CA_CERT');
  const insecureText = read(env, 'PRISM_INSECURE');
  const apiVersionText = read(env, 'PRISM_API_VERSION');
  // Trimmed like the other values: a header value cannot carry surrounding whitespace, and a key holds none.
  const apiKey = read(env, 'PRISM_API_KEY');

  if (host === undefined) problems.push('PRISM_HOST is not set: give the host name or IP address of Prism Central');
  else if (isIP(host.replace(/^\[(.*)\]$/, '$1')) === 0 && !HOST_NAME.test(host)) {
    problems.push(`PRISM_HOST must be a host name or IP address, without scheme, port or path (got ${JSON.stringify(host)})`);
  }
  const credentials = readCredentials(user, password, apiKey, problems);

  let port = DEFAULT_PRISM_PORT;
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
      problems.push(`PRISM_PORT must be a port number from 1 to 65535 (got ${JSON.stringify(portText)})`);
    }
  }

  if (clusterUuid === undefined && clusterName === undefined) {
    problems.push(
      'PRISM_CLUSTERUUID or PRISM_CLUSTERNAME must be set: the cluster VMs are placed on when an AhvVm names none',
    );
  }
  if (clusterUuid !== undefined && !UUID.test(clusterUuid)) {
    problems.push(`PRISM_CLUSTERUUID must be a UUID (got ${JSON.stringify(clusterUuid)})`);
  }

  let insecureSkipVerify = false;
  if (insecureText !== undefined) {
    if (insecureText !== 'true' && insecureText !== 'false') {
      problems.push(`PRISM_INSECURE must be "true" or "false" (got ${JSON.stringify(insecureText)})`);
    }
    insecureSkipVerify = insecureText === 'true';
  }
  if (caCertPem !== undefined) {
    problems.push(...caCertificateProblems(caCertPem));
    if (insecureSkipVerify) {
      problems.push('PRISM_CA_CERT and PRISM_INSECURE=true contradict each other: trust the CA, or verify nothing, not both');
    }
  }

  if (apiVersionText !== undefined && !API_VERSIONS.includes(apiVersionText)) {
    problems.push(`PRISM_API_VERSION must be v3, v4 or auto (got ${JSON.stringify(apiVersionText)})`);
  }

  if (problems.length > 0 || host === undefined || credentials === undefined) {
    throw new PrismConfigError(`Prism Central configuration is invalid:\n- ${problems.join('\n- ')}`);
  }

  const urlHost = isIP(host) === 6 ? `[${host}]` : host;
  const warnings = insecureSkipVerify
    ? [
        `PRISM_INSECURE=true: TLS certificate verification for Prism Central ${host}:${port} is OFF. Anyone on the ` +
          'network path can impersonate Prism Central and receive its password. Set PRISM_CA_CERT to the PEM of the ' +
          'CA that signed Prism Central\'s certificate instead.',
      ]
    : [];
  return {
    host,
    port,
    origin: `https://${urlHost}:${port}`,
    credentials,
    defaultCluster: {
      ...(clusterUuid === undefined ? {} : { uuid: clusterUuid.toLowerCase() }),
      ...(clusterName === undefined ? {} : { name: clusterName }),
    },
    tls: { ...(caCertPem === undefined ? {} : { caCertPem }), insecureSkipVerify },
    apiVersion: (apiVersionText ?? 'auto') as PrismConfig['apiVersion'],
    warnings,
  };
}

/**
 * Basic credentials or an API key, exactly one of them, as prism-go-client's `ApiCredentials.Validate` (v0.8.1,
 * `environment/types/types.go`) demands: "basic auth (username/password) and API key cannot be set simultaneously",
 * and "either username and password, or an API key must be set". A user named `X-ntnx-api-key` means the password is
 * an API key, as prism-go-client treats it (since #304, `internal/client.go`, `v4/v4.go`). Problems go to `problems`;
 * none shows a secret.
 */
function readCredentials(user: string | undefined, password: string | undefined, apiKey: string | undefined, problems: string[]): PrismAuthentication | undefined {
  const keyInPassword = user?.toLowerCase() === API_KEY_HEADER.toLowerCase();
  if (apiKey !== undefined) {
    const basic = [user === undefined ? undefined : 'PRISM_USER', password === undefined ? undefined : 'PRISM_PASS'].filter((name) => name !== undefined);
    if (basic.length > 0) {
      problems.push(
        `PRISM_API_KEY is set beside ${basic.join(' and ')}: Prism Central takes an API key or a user and password, not both. ` +
          'Remove PRISM_USER and PRISM_PASS from the Secret to use the API key, or PRISM_API_KEY to use the user',
      );
      return undefined;
    }
    if (!API_KEY_TEXT.test(apiKey)) {
      problems.push('PRISM_API_KEY must be visible ASCII without spaces (it is sent as the X-ntnx-api-key header): copy the key again');
      return undefined;
    }
    return new PrismApiKey(apiKey);
  }
  if (keyInPassword) {
    const key = password?.trim();
    if (key === undefined || key === '') {
      problems.push(`PRISM_USER is ${API_KEY_HEADER}, which makes PRISM_PASS the API key, but PRISM_PASS is not set: set the key in PRISM_API_KEY instead`);
      return undefined;
    }
    if (!API_KEY_TEXT.test(key)) {
      problems.push('PRISM_PASS, the API key with PRISM_USER X-ntnx-api-key, must be visible ASCII without spaces: copy the key again');
      return undefined;
    }
    return new PrismApiKey(key, `PRISM_PASS (PRISM_USER ${API_KEY_HEADER})`);
  }
  if (user === undefined && password === undefined) {
    problems.push(
      'no credentials for Prism Central: set PRISM_API_KEY to the API key of a Prism Central service account, ' +
        'or PRISM_USER and PRISM_PASS to a user and its password',
    );
    return undefined;
  }
  if (user === undefined) problems.push('PRISM_USER is not set: give the Prism Central user name');
  if (password === undefined) problems.push('PRISM_PASS is not set: give the password of PRISM_USER');
  return user === undefined || password === undefined ? undefined : new PrismCredentials(user, password);
}

function caCertificateProblems(pem: string): string[] {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    return ['PRISM_CA_CERT must hold one or more PEM certificates (-----BEGIN CERTIFICATE----- …)'];
  }
  return blocks.flatMap((block, index) => {
    try {
      new X509Certificate(block);
      return [];
    } catch (error) {
      return [`PRISM_CA_CERT certificate ${index + 1} cannot be parsed: ${(error as Error).message}`];
    }
  });
}
