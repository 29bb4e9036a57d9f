import { expect, test } from 'vitest';
import type { AhvVm } from '../api/ahvvm-resource.ts';
import { available, failed, desiredAhvVmStatus, pending } from './desired-ahvvm-status.ts';

const avm = (status?: AhvVm['status']): AhvVm => ({ apiVersion: 'nutanix.com/v1alpha1', kind: 'AhvVm', metadata: { name: 'web', generation: 3 }, spec: {}, ...(status === undefined ? {} : { status }) });
const now = new Date('2026-01-02T03:04:05Z');

test('Ready says whether the VM is there and as asked; Synced whether the reconcile failed', () => {
  const ready = desiredAhvVmStatus(avm(), available('VM u matches the spec'), { uuid: 'u' }, now);
  expect(ready).toMatchObject({ uuid: 'u', observedGeneration: 3 });
  expect(ready.conditions?.map((c) => [c.type, c.status, c.reason, c.observedGeneration])).toEqual([['Ready', 'True', 'Available', 3], ['Synced', 'True', 'ReconcileSuccess', 3]]);

  const waiting = desiredAhvVmStatus(avm(ready), pending('PowerCycleRequired', 'needs consent'), {}, now);
  expect(waiting.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([['Ready', 'False', 'PowerCycleRequired'], ['Synced', 'True', 'ReconcileSuccess']]);

  const broken = desiredAhvVmStatus(avm(waiting), failed('AuthenticationFailed', 'refused'), { uuid: undefined }, now);
  expect(broken.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([['Ready', 'False', 'AuthenticationFailed', 'refused'], ['Synced', 'False', 'AuthenticationFailed', 'refused']]);
  expect(JSON.parse(JSON.stringify(broken))).not.toHaveProperty('uuid');
});
