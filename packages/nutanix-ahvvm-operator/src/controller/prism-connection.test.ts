import { describe, expect, it, vi } from 'vitest';
import type { PrismClient } from '../prism/v3/prism-client.ts';
import { PrismTransportError } from '../prism/prism-errors.ts';
import type { PrismV4Client } from '../prism/v4/prism-v4-client.ts';
import { connectToPrism, selectVmApi } from './prism-connection.ts';

const v3Client = {} as PrismClient;

function v4Client(answers: (() => Promise<boolean>)[]): PrismV4Client & { probes: number } {
  const client = { probes: 0, servesV4: () => {
    const answer = answers[Math.min(client.probes, answers.length - 1)];
    client.probes += 1;
    if (answer === undefined) throw new Error('no answer');
    return answer();
  } };
  return client as unknown as PrismV4Client & { probes: number };
}

describe('selectVmApi', () => {
  it('uses what it is told for v3 and v4, without asking Prism Central', async () => {
    const v4 = v4Client([() => Promise.resolve(false)]);
    expect((await selectVmApi('v3', v3Client, v4)()).version).toBe('v3');
    expect((await selectVmApi('v4', v3Client, v4)()).version).toBe('v4');
    expect(v4.probes).toBe(0);
  });

  it('auto: asks once per connection, v4 where served, v3 where not', async () => {
    for (const [served, version] of [[true, 'v4'], [false, 'v3']] as const) {
      const v4 = v4Client([() => Promise.resolve(served)]);
      const selected = vi.fn();
      const vms = selectVmApi('auto', v3Client, v4, selected);
      const [first, second] = await Promise.all([vms(), vms()]);
      expect([first.version, second.version, (await vms()).version]).toEqual([version, version, version]);
      expect(v4.probes).toBe(1);
      expect(selected).toHaveBeenCalledExactlyOnceWith(version, 'auto');
    }
  });

  it('auto: a probe that fails is no answer; the failure goes to the caller and the next call asks again', async () => {
    const failure = new PrismTransportError({ method: 'GET', path: '/vms' }, 'ECONNREFUSED', false, undefined);
    const v4 = v4Client([() => Promise.reject(failure), () => Promise.resolve(true)]);
    const vms = selectVmApi('auto', v3Client, v4);
    await expect(vms()).rejects.toBe(failure);
    expect((await vms()).version).toBe('v4');
    expect(v4.probes).toBe(2);
  });
});

describe('connectToPrism', () => {
  const ENV = { PRISM_HOST: 'pc.example.com', PRISM_USER: 'admin', PRISM_PASS: 'secret', PRISM_CLUSTERNAME: 'c1' };

  it('takes the API version from PRISM_API_VERSION, the flag overriding it, auto by default', async () => {
    const connections = [connectToPrism(ENV), connectToPrism({ ...ENV, PRISM_API_VERSION: 'v3' }), connectToPrism({ ...ENV, PRISM_API_VERSION: 'v3' }, { apiVersion: 'v4' })];
    expect(connections.map((c) => (c.configured ? c.apiSetting : 'unconfigured'))).toEqual(['auto', 'v3', 'v4']);
    const [, v3, v4] = connections;
    if (v3?.configured !== true || v4?.configured !== true) throw new Error('unreachable');
    expect([(await v3.vms()).version, (await v4.vms()).version]).toEqual(['v3', 'v4']);
    for (const connection of connections) if (connection.configured) await connection.close();
  });
});
