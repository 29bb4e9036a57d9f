import { expect, test } from 'vitest';
import { quantityValue } from './quantity.ts';

test('memory and CPU quantities in every notation the API server accepts', () => {
  expect(quantityValue('256Mi')).toBe(256 * 2 ** 20);
  expect(quantityValue('1.5Gi')).toBe(1.5 * 2 ** 30);
  expect(quantityValue('128M')).toBe(128e6);
  expect(quantityValue('500m')).toBe(0.5);
  expect(quantityValue('2')).toBe(2);
  expect(quantityValue('1e3')).toBe(1000);
  expect(quantityValue(3)).toBe(3);
  expect(() => quantityValue('12 apples')).toThrow('not a Kubernetes quantity: "12 apples"');
});
