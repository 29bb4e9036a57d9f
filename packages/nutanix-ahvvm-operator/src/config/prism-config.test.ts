import { readFile } from 'node:fs/promises';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PrismConfigError, loadPrismConfig } from './prism-config.ts';
import { PrismApiKey } from './prism-credentials.ts';

const SECRET = 'Nutanix/4u-very-secret';
const BASE = {
  PRISM_HOST: 'pc.example.com',
  PRISM_USER: 'admin',
  PRISM_PASS: SECRET,
  PRISM_CLUSTERNAME: 'ncn-dev-sandbox',
  PRISM_CLUSTERUUID: '00061F7F-1D2C-4B6E-9A31-7C2E5D4F6A01',
};

/** A self-signed EC P-256 CA certificate (`openssl req -x509 -newkey ec …`; its key was discarded). */
const CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBlzCCAT2gAwIBAgIUeLqiKwuK/mydBlz5XYNVj5/4RsQwCgYIKoZIzj0EAwIw
ITEfMB0GA1UEAwwWYWh2dm0tb3BlcmF0b3ItdGVzdC1jYTAeFw0yNjExMjIwMTIw
MDdaFw0zNjExMTkwMTIwMDdaMCExHzAdBgNVBAMMFmFodnZtLW9wZXJhdG9yLXRl
c3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARDAMqHuDlDaH6xCruc2kCx
e8sNn/RXH8yr4BLKLBA2uYa2Zo7BqQI4NBSlpW0tnCrPlG6gt1vuhJ67Sl1w3vB1
o1MwUTAdBgNVHQ4EFgQUeAnXWN1NMw9JJR82J6wmp+Rktl0wHwYDVR0jBBgwFoAU
eAnXWN1NMw9JJR82J6wmp+Rktl0wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
AgNIADBFAiEApoBxFKuAdEpaGkngXhGgr3XjbKVIeBAGZDwoWdzd6XsCIBHXyZ9y
FPavlUBVXKoLiWoOqu6MqSaBvNBWSeY2z/iL
-----END CERTIFICATE-----`;

function load(overrides: Record<string, string | undefined>) {
  return () => loadPrismConfig({ ...BASE, ...overrides });
}

describe('loadPrismConfig', () => {
  it('reads the seed\'s variables, with 9440 as the default port and verification on', () => {
    const config = loadPrismConfig(BASE);
    expect(config).toMatchObject({
      host: 'pc.example.com',
      port: 9440,
      origin: 'https://pc.example.com:9440',
      defaultCluster: { uuid: '00061f7f-1d2c-4b6e-9a31-7c2e5d4f6a01', name: 'ncn-dev-sandbox' },
      tls: { insecureSkipVerify: false },
      apiVersion: 'auto',
      warnings: [],
    });
    expect(config.credentials).toMatchObject({ kind: 'basic', username: 'admin' });
  });

  it('takes PRISM_API_VERSION v3, v4 or auto, and nothing else', () => {
    for (const version of ['v3', 'v4', 'auto'] as const) expect(load({ PRISM_API_VERSION: version })().apiVersion).toBe(version);
    expect(load({ PRISM_API_VERSION: 'v4.2' })).toThrow('PRISM_API_VERSION must be v3, v4 or auto (got "v4.2")');
  });

  it('takes a port, an IPv6 address and a cluster given by name only', () => {
    const config = loadPrismConfig({ ...BASE, PRISM_HOST: 'fd00::10', PRISM_PORT: '443', PRISM_CLUSTERUUID: undefined });
    expect(config.origin).toBe('https://[fd00::10]:443');
    expect(config.defaultCluster).toEqual({ name: 'ncn-dev-sandbox' });
  });

  it.each([
    ['PRISM_HOST', { PRISM_HOST: undefined }, 'PRISM_HOST is not set'],
    ['PRISM_USER', { PRISM_USER: '' }, 'PRISM_USER is not set'],
    ['PRISM_PASS', { PRISM_PASS: undefined }, 'PRISM_PASS is not set'],
    ['both cluster variables', { PRISM_CLUSTERNAME: undefined, PRISM_CLUSTERUUID: ' ' }, 'PRISM_CLUSTERUUID or PRISM_CLUSTERNAME must be set'],
  ])('names a missing %s', (_what, overrides, message) => {
    expect(load(overrides)).toThrow(PrismConfigError);
    expect(load(overrides)).toThrow(message);
  });

  it.each([
    [{ PRISM_HOST: 'https://pc.example.com' }, 'PRISM_HOST must be a host name or IP address, without scheme, port or path'],
    [{ PRISM_HOST: 'pc.example.com:9440' }, 'PRISM_HOST must be a host name'],
    [{ PRISM_PORT: '94400' }, 'PRISM_PORT must be a port number from 1 to 65535 (got "94400")'],
    [{ PRISM_PORT: 'http' }, 'PRISM_PORT must be a port number'],
    [{ PRISM_CLUSTERUUID: 'cluster-1' }, 'PRISM_CLUSTERUUID must be a UUID (got "cluster-1")'],
    [{ PRISM_INSECURE: 'yes' }, 'PRISM_INSECURE must be "true" or "false" (got "yes")'],
    [{ PRISM_CA_CERT: 'not a pem' }, 'PRISM_CA_CERT must hold one or more PEM certificates'],
    [{ PRISM_CA_CERT: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, 'PRISM_CA_CERT certificate 1 cannot be parsed'],
  ])('explains a bad value: %o', (overrides, message) => {
    expect(load(overrides)).toThrow(message);
  });

  it('reports every problem at once', () => {
    expect(load({ PRISM_HOST: undefined, PRISM_USER: undefined, PRISM_PORT: '0' })).toThrow(
      /PRISM_HOST is not set[\s\S]*PRISM_USER is not set[\s\S]*PRISM_PORT must be/,
    );
  });

  it('never shows the password, in errors or when the configuration is logged', () => {
    let message = '';
    try {
      loadPrismConfig({ ...BASE, PRISM_HOST: 'http://x', PRISM_PORT: SECRET });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('PRISM_PORT must be a port number');
    const config = loadPrismConfig(BASE);
    for (const shown of [message.replace(SECRET, 'PORT-VALUE'), JSON.stringify(config), inspect(config, { depth: 10 })]) {
      expect(shown).not.toContain(SECRET);
      expect(shown).not.toContain(Buffer.from(`admin:${SECRET}`).toString('base64'));
    }
    expect(JSON.stringify(config)).toContain('"password":"[REDACTED]"');
  });

  it('turns verification off only for PRISM_INSECURE=true, with a loud warning', () => {
    expect(loadPrismConfig({ ...BASE, PRISM_INSECURE: 'false' }).tls.insecureSkipVerify).toBe(false);
    const config = loadPrismConfig({ ...BASE, PRISM_INSECURE: 'true' });
    expect(config.tls.insecureSkipVerify).toBe(true);
    expect(config.warnings).toEqual([expect.stringMatching(/^PRISM_INSECURE=true: TLS certificate verification for Prism Central pc\.example\.com:9440 is OFF/)]);
  });

  it('takes a CA certificate to trust, and refuses it together with PRISM_INSECURE=true', () => {
    expect(loadPrismConfig({ ...BASE, PRISM_CA_CERT: CA_PEM }).tls).toEqual({ caCertPem: CA_PEM, insecureSkipVerify: false });
    expect(load({ PRISM_CA_CERT: CA_PEM, PRISM_INSECURE: 'true' })).toThrow('PRISM_CA_CERT and PRISM_INSECURE=true contradict each other');
  });
});

/** Shaped like a Prism Central service account's API key; made up. */
const API_KEY = 'ntnx-sa-7Hq2vXk9TzLw4pRm8sYc3bNe6fJd5gUa';
/** The seed's variables with the API key instead of PRISM_USER and PRISM_PASS. */
const KEY_ONLY = { ...BASE, PRISM_USER: undefined, PRISM_PASS: undefined, PRISM_API_KEY: API_KEY };

// prism-go-client v0.8.1 (1e253ea) environment/credentials/types.go: a credential of `"type": "api_key"` carries
// `data.prismCentral.apiKey`, one of `"type": "basic_auth"` `data.prismCentral.username`/`password`; CAPX 946f0db
// (#745, #747) writes its Secrets that way. Here the same choice is made by the Secret's keys: PRISM_API_KEY, or
// PRISM_USER and PRISM_PASS. environment/types/types.go ApiCredentials.Validate allows exactly one of the two.
describe('loadPrismConfig with an API key', () => {
  it('takes PRISM_API_KEY instead of PRISM_USER and PRISM_PASS, trimmed like the other values', () => {
    for (const value of [API_KEY, ` ${API_KEY}\n`]) {
      const { credentials } = loadPrismConfig({ ...KEY_ONLY, PRISM_API_KEY: value });
      expect(credentials).toBeInstanceOf(PrismApiKey);
      expect(credentials.headers()).toEqual({ 'X-ntnx-api-key': API_KEY });
      expect(credentials.describe()).toBe('the API key in PRISM_API_KEY');
      expect(credentials.usesSession).toBe(false);
    }
  });

  it('Basic credentials give the Authorization header and a session, as before', () => {
    const { credentials } = loadPrismConfig(BASE);
    expect(credentials.headers()).toEqual({ authorization: `Basic ${Buffer.from(`admin:${SECRET}`).toString('base64')}` });
    expect(credentials.usesSession).toBe(true);
    expect(credentials.describe()).toBe('the credentials of user "admin"');
  });

  it('takes the key from PRISM_PASS when PRISM_USER is X-ntnx-api-key, as prism-go-client does (#304)', () => {
    for (const user of ['X-ntnx-api-key', 'x-ntnx-api-key', 'X-Ntnx-Api-Key']) {
      const { credentials } = loadPrismConfig({ ...BASE, PRISM_USER: user, PRISM_PASS: API_KEY });
      expect(credentials.headers()).toEqual({ 'X-ntnx-api-key': API_KEY });
      expect(credentials.describe()).toBe('the API key in PRISM_PASS (PRISM_USER X-ntnx-api-key)');
    }
    expect(load({ PRISM_USER: 'X-ntnx-api-key', PRISM_PASS: undefined })).toThrow('PRISM_USER is X-ntnx-api-key, which makes PRISM_PASS the API key, but PRISM_PASS is not set');
  });

  it.each([
    ['PRISM_USER and PRISM_PASS', { PRISM_USER: 'admin', PRISM_PASS: SECRET }, 'PRISM_API_KEY is set beside PRISM_USER and PRISM_PASS: Prism Central takes an API key or a user and password, not both. Remove PRISM_USER and PRISM_PASS from the Secret to use the API key, or PRISM_API_KEY to use the user'],
    ['PRISM_USER alone', { PRISM_USER: 'admin' }, 'PRISM_API_KEY is set beside PRISM_USER: '],
    ['PRISM_PASS alone', { PRISM_PASS: SECRET }, 'PRISM_API_KEY is set beside PRISM_PASS: '],
    ['PRISM_USER X-ntnx-api-key', { PRISM_USER: 'X-ntnx-api-key', PRISM_PASS: 'other-key' }, 'PRISM_API_KEY is set beside PRISM_USER and PRISM_PASS'],
  ])('refuses a Secret with both an API key and %s, saying what to remove', (_what, basic, message) => {
    expect(() => loadPrismConfig({ ...KEY_ONLY, ...basic })).toThrow(PrismConfigError);
    expect(() => loadPrismConfig({ ...KEY_ONLY, ...basic })).toThrow(message);
  });

  it('refuses a Secret with neither, naming both ways', () => {
    for (const neither of [{ PRISM_API_KEY: undefined }, { PRISM_API_KEY: ' ', PRISM_USER: '', PRISM_PASS: '' }]) {
      expect(() => loadPrismConfig({ ...KEY_ONLY, ...neither })).toThrow(
        'no credentials for Prism Central: set PRISM_API_KEY to the API key of a Prism Central service account, or PRISM_USER and PRISM_PASS to a user and its password',
      );
    }
  });

  it('refuses a key that cannot be a header value, without showing it', () => {
    const broken = `${API_KEY.slice(0, 10)} ${API_KEY.slice(10)}`;
    let message = '';
    try {
      loadPrismConfig({ ...KEY_ONLY, PRISM_API_KEY: broken });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('PRISM_API_KEY must be visible ASCII without spaces (it is sent as the X-ntnx-api-key header)');
    expect(message).not.toContain(API_KEY.slice(0, 10));
    expect(message).not.toContain(API_KEY.slice(10));
  });

  it('never shows the key: not in errors, nor when the configuration is logged or serialised', () => {
    const messages: string[] = [];
    for (const env of [{ ...KEY_ONLY, PRISM_USER: 'admin' }, { ...KEY_ONLY, PRISM_HOST: undefined }, { ...KEY_ONLY, PRISM_PORT: 'x' }]) {
      try {
        loadPrismConfig(env);
      } catch (error) {
        messages.push((error as Error).message, (error as Error).stack ?? '', inspect(error));
      }
    }
    expect(messages).toHaveLength(9);
    const config = loadPrismConfig(KEY_ONLY);
    for (const shown of [...messages, JSON.stringify(config), inspect(config, { depth: 10 }), config.credentials.describe()]) {
      expect(shown).not.toContain(API_KEY);
    }
    expect(JSON.stringify(config)).toContain('"credentials":{"apiKey":"[REDACTED]","source":"PRISM_API_KEY"}');
    expect(inspect(config.credentials)).toBe('PrismApiKey { source: "PRISM_API_KEY", apiKey: [REDACTED] }');
  });
});

describe('the prism-central Secret as installed', () => {
  const deploy = (path: string) => readFile(new URL(`../../../../deploy/nutanix-ahvvm-operator/${path}`, import.meta.url), 'utf8');

  it('reaches the operator with every key loadPrismConfig reads, PRISM_API_KEY included, each shown in the sample', async () => {
    const source = await readFile(new URL('./prism-config.ts', import.meta.url), 'utf8');
    const read = new Set([...source.matchAll(/read\(env, '(PRISM_\w+)'\)|env\.(PRISM_\w+)/g)].map((match) => match[1] ?? match[2]));
    expect(read).toContain('PRISM_API_KEY');
    const [manager, sample] = await Promise.all([deploy('manager/manager.yaml'), deploy('samples/prism-central-secret.yaml')]);
    for (const key of read) {
      expect(manager, key).toContain(`- name: ${key ?? ''}\n              valueFrom:\n                secretKeyRef: {name: prism-central, key: ${key ?? ''}, optional: true}`);
      expect(sample, key).toMatch(new RegExp(`^  (# )?${key ?? ''}:`, 'm'));
    }
  });
});
