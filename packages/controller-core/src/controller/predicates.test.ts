import type { KubernetesObject } from '@kubernetes/client-node';
import { expect, test } from 'vitest';
import { admits, and, generationChanged, hasLabels, labelsChanged, not, or } from './predicates.ts';

const obj = (generation: number, labels: Record<string, string> = {}): KubernetesObject => ({ metadata: { name: 'x', generation, labels } });

test('generationChanged lets creates and deletes through and only spec changes among updates', () => {
  const p = [generationChanged()];
  expect(admits(p, 'create', obj(1))).toBe(true);
  expect(admits(p, 'update', obj(1), obj(1))).toBe(false);
  expect(admits(p, 'update', obj(2), obj(1))).toBe(true);
  expect(admits(p, 'delete', obj(1))).toBe(true);
});

test('label predicates and combinators', () => {
  expect(admits([labelsChanged()], 'update', obj(1, { a: '1' }), obj(1, { a: '1' }))).toBe(false);
  expect(admits([labelsChanged()], 'update', obj(1, { a: '2' }), obj(1, { a: '1' }))).toBe(true);
  const web = hasLabels({ app: 'web' });
  expect(admits([web], 'create', obj(1, { app: 'web' }))).toBe(true);
  expect(admits([web], 'create', obj(1, { app: 'db' }))).toBe(false);
  // An update that moves an object out of the selector still counts: the controller must see it leave.
  expect(admits([web], 'update', obj(1, { app: 'db' }), obj(1, { app: 'web' }))).toBe(true);
  expect(admits([or(web, generationChanged())], 'update', obj(2, { app: 'db' }), obj(1, { app: 'db' }))).toBe(true);
  expect(admits([and(web, generationChanged())], 'update', obj(2, { app: 'db' }), obj(1, { app: 'db' }))).toBe(false);
  expect(admits([not(web)], 'create', obj(1, { app: 'db' }))).toBe(true);
  expect(admits([], 'delete', obj(1))).toBe(true);
});
