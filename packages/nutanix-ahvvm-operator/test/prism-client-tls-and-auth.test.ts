import { startPrismSimulator, type PrismSimulator } from '@k8s-operators/prism-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismCredentials } from '../src/config/prism-credentials.ts';
import { PrismClient } from '../src/prism/v3/prism-client.ts';
import { PrismAuthenticationError, PrismTlsError } from '../src/prism/prism-errors.ts';
import { FAST_TIMINGS, clientFor, outcomesOf, startSimulator } from './simulator.ts';

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
