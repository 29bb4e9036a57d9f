// Removing the operator with its AhvVms in place (`kubectl delete -k deploy/nutanix-ahvvm-operator`, `kubectl delete
// -f install.yaml`, `helm uninstall` with crds.keep=false) deletes the CRD, and the API server then deletes every
// AhvVm while the operator still runs. Those are not deletions a user asked for: the VMs must stay in Prism, untouched,
// and the person on call must be told so. Against a real API server and the simulator, on v3 and on v4; a CRD of the
// file's own, since the test deletes it. The operator runs with deploy/'s ClusterRole and nothing more, so the role's
// get on this CRD is shown to be the one the finalizer needs.

import { Resources } from '@k8s-operators/controller-core';
import { waitFor } from '@k8s-operators/testkit';
import { expect, it } from 'vitest';
import { AHVVM_CRD_NAME } from '../src/api/ahvvm-ref.ts';
import type { PrismApiSetting } from '../src/vm/prism-vm-api.ts';
import { env, onlyVm, operatorFor, prismEnv, simulator, stopOperator, useControllerFixture, uuidOf } from './controller-fixture.ts';

useControllerFixture('v3');

it.each<PrismApiSetting>(['v3', 'v4'])('on %s: the CRD deleted while the operator runs lets every AhvVm go and keeps its VM, with an Event that says so', async (api) => {
  await env.installCrd();
  const NS = `uninstall-${api}`;
  const name = `kept-on-uninstall-${api}`;
  await env.createNamespace(NS);
  const logLines: string[] = [];
  const operator = await operatorFor(NS, {
    env: prismEnv({ PRISM_API_VERSION: api }),
    kubeconfig: await env.kubeconfigWithManagerRole(),
    logLevel: 'info',
    logTo: { write: (line) => { logLines.push(line); } },
  });
  const avm = await env.waitForCondition(NS, (await env.apply(NS, name, {})).metadata.name ?? '', 'Ready', 'True');
  const uuid = uuidOf(avm);
  expect(onlyVm(name).uuid).toBe(uuid);
  const sentBefore = simulator.requestLog().length;

  await env.kube.delete(Resources.CustomResourceDefinition, { name: AHVVM_CRD_NAME });
  // The API server removes the CRD only once every AhvVm is gone, so the operator has let this one go.
  await waitFor(async () => (await env.kube.get(Resources.CustomResourceDefinition, { name: AHVVM_CRD_NAME })) === undefined, { what: 'the CRD to be gone', timeoutMs: 30_000 });

  expect(onlyVm(name)).toMatchObject({ uuid, powerState: 'OFF' });
  const changes = simulator.requestLog().slice(sentBefore).filter((r) => r.method !== 'GET' && !(r.method === 'POST' && r.path.endsWith('/list')));
  expect(changes, 'requests that change something in Prism').toEqual([]);
  const note = await waitFor(async () => {
    const events = await env.kube.list(Resources.Event, { namespace: NS });
    return events.items.find((e) => e.regarding?.name === name && e.reason === 'Retained')?.note;
  }, { what: 'the Retained Event' });
  expect(note).toContain(`VM "${name}" (${uuid}) is kept in Prism Central: the AhvVm kind is being removed`);
  expect(note).toContain('delete their AhvVms first and wait until they are gone, then remove the operator');
  expect(logLines.some((line) => line.includes(`(${uuid}) is kept in Prism Central`))).toBe(true);
  await stopOperator(operator);
});
