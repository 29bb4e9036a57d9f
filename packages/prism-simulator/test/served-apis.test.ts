// The `apis` switch: a simulator that serves only v4 (v3 answers 404, as on a Prism Central whose v3 API is gone) or
// only v3 (v4 answers 404, as before v4), so that a client can be shown to use one API and never the other.

import { describe, expect, it } from 'vitest';
import { PRISM_CATEGORIES_PATH, VMM_VMS_PATH, type PrismSimulator, type ServedApis } from '../src/index.ts';
import { PrismTestClient } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, firstAppMessage } from './v4-client.ts';

async function answers(simulator: PrismSimulator): Promise<Record<string, number>> {
  const v3 = new PrismTestClient(simulator);
  const v4 = new V4TestClient(simulator);
  return {
    'v3 POST /vms/list': (await v3.request('POST', '/vms/list', { kind: 'vm' })).status,
    'v3 GET /clusters/{uuid}': (await v3.request('GET', `/clusters/${simulator.clusters[0]?.uuid ?? ''}`)).status,
    'v4 GET vms': (await v4.request('GET', VMM_VMS_PATH)).status,
    'v4 GET categories': (await v4.request('GET', PRISM_CATEGORIES_PATH)).status,
    'v4 OPTIONS unversioned/info': (await v4.request('OPTIONS', '/api/vmm/unversioned/info')).status,
  };
}

const served: Record<ServedApis, Record<string, number>> = {
  both: { 'v3 POST /vms/list': 200, 'v3 GET /clusters/{uuid}': 200, 'v4 GET vms': 200, 'v4 GET categories': 200, 'v4 OPTIONS unversioned/info': 200 },
  v4: { 'v3 POST /vms/list': 404, 'v3 GET /clusters/{uuid}': 404, 'v4 GET vms': 200, 'v4 GET categories': 200, 'v4 OPTIONS unversioned/info': 200 },
  v3: { 'v3 POST /vms/list': 200, 'v3 GET /clusters/{uuid}': 200, 'v4 GET vms': 404, 'v4 GET categories': 404, 'v4 OPTIONS unversioned/info': 404 },
};

for (const apis of ['both', 'v4', 'v3'] as const) {
  describe(`a simulator with apis: '${apis}'`, () => {
    const prism = useFastSimulator({ apis });

    it(`serves ${apis === 'both' ? 'v3 and v4' : `only ${apis}`}, answering the other API's paths with 404 in that API's error shape`, async () => {
      expect(await answers(prism.simulator)).toEqual(served[apis]);
      if (apis === 'v4') {
        const reply = await prism.client.request('POST', '/vms/list', { kind: 'vm' });
        expect(reply.json).toMatchObject({ state: 'ERROR', code: 404, message_list: [{ reason: 'NOT_FOUND' }] });
      }
      if (apis === 'v3') {
        const reply = await new V4TestClient(prism.simulator).request('GET', VMM_VMS_PATH);
        expect(firstAppMessage(reply)).toMatchObject({ $objectType: 'vmm.v4.error.AppMessage', errorGroup: 'NOT_FOUND' });
      }
    });
  });
}
