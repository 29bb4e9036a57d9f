import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PrismConfigError, loadPrismConfig } from './prism-config.ts';

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
    expect(config.credentials.username).toBe('admin');
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
