import { startPrismSimulator, type PrismSimulator } from '@k8s-operators/prism-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { PrismApiKey, PrismCredentials } from '../src/config/prism-credentials.ts';
import { PrismClient } from '../src/prism/v3/prism-client.ts';
import { PrismAuthenticationError, PrismTlsError } from '../src/prism/prism-errors.ts';
import { FAST_TIMINGS, clientFor, outcomesOf, startSimulator, v4ClientFor } from './simulator.ts';

const UNKNOWN_VM = '0b5c3a10-0000-4000-8000-000000000000';

describe('TLS', () => {
  let simulator: PrismSimulator;
  let otherSimulator: PrismSimulator;

  beforeAll(async () => {
    [simulator, otherSimulator] = await Promise.all([startSimulator(), startSimulator()]);
  });
  afterAll(() => Promise.all([simulator.stop(), otherSimulator.stop()]));

  it('refuses the server without its CA, and never retries that', async () => {
    const client = clientFor(simulator, { tls: { insecureSkipVerify: false } });
    const failure = client.getVm(UNKNOWN_VM);
    await expect(failure).rejects.toBeInstanceOf(PrismTlsError);
    await expect(failure).rejects.toMatchObject({ conditionReason: 'TLSVerificationFailed', message: /set PRISM_CA_CERT/ });
    expect(outcomesOf(simulator, 'GET', 'GET /vms/{uuid}')).toEqual({});
    await client.close();
  });

  it('refuses the server when trusting another CA', async () => {
    const client = clientFor(simulator, { tls: { caCertPem: otherSimulator.caCertPem ?? '', insecureSkipVerify: false } });
    await expect(client.getVm(UNKNOWN_VM)).rejects.toBeInstanceOf(PrismTlsError);
    await client.close();
  });

  it('accepts the server when trusting its CA', async () => {
    const client = clientFor(simulator);
    await expect(client.getVm(UNKNOWN_VM)).resolves.toBeUndefined();
    await client.close();
  });

  it('accepts any certificate with the explicit insecure opt-in', async () => {
    const client = clientFor(simulator, { tls: { insecureSkipVerify: true } });
    await expect(client.getVm(UNKNOWN_VM)).resolves.toBeUndefined();
    await client.close();
  });
});

describe('authentication', () => {
  const clock = { now: Date.UTC(2025, 5, 7, 18, 23, 52) };
  let simulator: PrismSimulator;

  beforeAll(async () => {
    simulator = await startSimulator({ username: 'ops', password: 's3cret-Pa55', now: () => clock.now });
  });
  afterAll(() => simulator.stop());

  it('logs in once, then rides the session cookie; when it expires, logs in again once and carries on', async () => {
    const client = clientFor(simulator);
    await client.getVm(UNKNOWN_VM);
    await client.getVm(UNKNOWN_VM);
    // Had the client sent Basic credentials on every call, an expired session could never be noticed.
    clock.now += 15 * 60_000;
    await expect(client.getVm(UNKNOWN_VM)).resolves.toBeUndefined();
    await client.getVm(UNKNOWN_VM);
    expect(outcomesOf(simulator, 'GET', 'GET /vms/{uuid}')).toEqual({ 401: 1, 404: 4 });
    await client.close();
  });

  it('reports bad credentials as PrismAuthenticationError after one request, without the password', async () => {
    const before = outcomesOf(simulator, 'POST', 'POST /vms/list')['401'] ?? 0;
    const client = clientFor(simulator, { credentials: new PrismCredentials('ops', 'wrong-password') });
    const failure = client.listVmsByName('anything');
    await expect(failure).rejects.toBeInstanceOf(PrismAuthenticationError);
    await expect(failure).rejects.toMatchObject({
      conditionReason: 'AuthenticationFailed',
      message: 'POST /vms/list: Prism Central refused the credentials of user "ops" (HTTP 401)',
    });
    expect((outcomesOf(simulator, 'POST', 'POST /vms/list')['401'] ?? 0) - before).toBe(1);
    await client.close();
  });
});

describe('a password changed while a session is open', () => {
  it('tries the new login once, then reports PrismAuthenticationError', async () => {
    // Plain HTTP, so the restarted server on the same port needs no new CA.
    const first = await startPrismSimulator({ password: 'before', timings: FAST_TIMINGS });
    const client = new PrismClient({
      origin: first.url,
      credentials: new PrismCredentials(first.username, 'before'),
      tls: { insecureSkipVerify: false },
    });
    await client.getVm(UNKNOWN_VM);
    await first.stop();
    const rotated = await startPrismSimulator({ port: first.port, password: 'after', timings: FAST_TIMINGS });
    try {
      await expect(client.getVm(UNKNOWN_VM)).rejects.toBeInstanceOf(PrismAuthenticationError);
      // The session cookie, then Basic credentials once: no loop.
      expect(outcomesOf(rotated, 'GET', 'GET /vms/{uuid}')).toEqual({ 401: 2 });
    } finally {
      await client.close();
      await rotated.stop();
    }
  });
});

/** Shaped like a Prism Central service account's API key; made up. */
const API_KEY = 'ntnx-sa-7Hq2vXk9TzLw4pRm8sYc3bNe6fJd5gUa';

// prism-go-client v0.8.1 (1e253ea) internal/client.go and v4/v4.go: with Credentials.APIKey every request carries
// `X-ntnx-api-key: <key>` instead of Basic credentials; CAPX 946f0db (#745) uses it for PC service accounts.
describe('an API key', () => {
  let simulator: PrismSimulator;

  beforeAll(async () => {
    // Basic credentials are refused outright: whatever succeeds below did so by the key.
    simulator = await startSimulator({ basicAuth: false, apiKeys: [API_KEY] });
  });
  afterAll(() => simulator.stop());

  it('gets the v3 and the v4 client in, on every request by the key, never by a session', async () => {
    const before = simulator.requestLog().length;
    const v3 = clientFor(simulator, { credentials: new PrismApiKey(API_KEY) });
    const v4 = v4ClientFor(simulator, { credentials: new PrismApiKey(API_KEY) });
    try {
      await expect(v3.listVmsByName('nothing-yet')).resolves.toEqual([]);
      await expect(v3.getVm(UNKNOWN_VM)).resolves.toBeUndefined();
      await expect(v4.servesV4()).resolves.toBe(true);
      await expect(v4.listVmsByName('nothing-yet')).resolves.toEqual([]);
      await expect(v3.listVmsByName('still-nothing')).resolves.toEqual([]);
    } finally {
      await Promise.all([v3.close(), v4.close()]);
    }
    const log = simulator.requestLog().slice(before);
    expect(log.length).toBeGreaterThanOrEqual(5);
    // The simulator offers session cookies on a key's first request; the client does not take them up.
    expect(new Set(log.map((entry) => entry.authenticatedBy))).toEqual(new Set(['api-key']));
  });

  it('reports a wrong key as PrismAuthenticationError after one request, on v3 and v4, without the key', async () => {
    const wrongKey = `${API_KEY.slice(0, -4)}XXXX`;
    const v3 = clientFor(simulator, { credentials: new PrismApiKey(wrongKey) });
    const v4 = v4ClientFor(simulator, { credentials: new PrismApiKey(wrongKey) });
    try {
      const before = simulator.requestLog().length;
      const failures = [v3.listVmsByName('anything'), v4.listVmsByName('anything')];
      for (const failure of failures) {
        await expect(failure).rejects.toBeInstanceOf(PrismAuthenticationError);
        const error = (await failure.catch((caught: unknown) => caught)) as PrismAuthenticationError;
        expect(error.message).toMatch(/: Prism Central refused the API key in PRISM_API_KEY \(HTTP 401\)$/);
        for (const shown of [error.message, error.stack ?? '', inspect(error, { depth: 10 })]) {
          expect(shown).not.toContain(wrongKey);
          expect(shown).not.toContain(API_KEY);
        }
      }
      expect(simulator.requestLog().slice(before).map((entry) => entry.outcome)).toEqual([401, 401]);
    } finally {
      await Promise.all([v3.close(), v4.close()]);
    }
  });
});
