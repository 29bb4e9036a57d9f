import { hostname } from 'node:os';
import { expect, test } from 'vitest';
import { podName } from './pod-name.ts';

test('the Pod name comes from POD_NAME, else from the hostname', () => {
  expect(podName({ POD_NAME: 'maintpage-operator-7d9f-x2k4q' })).toBe('maintpage-operator-7d9f-x2k4q');
  expect(podName({})).toBe(hostname());
  // An empty variable (a downward-API entry without a value) is no name.
  expect(podName({ POD_NAME: '' })).toBe(hostname());
});
