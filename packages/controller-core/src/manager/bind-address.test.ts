import { expect, test } from 'vitest';
import { parseBindAddress } from './bind-address.ts';

test('controller-runtime style bind addresses', () => {
  expect(parseBindAddress(':8081')).toEqual({ host: '0.0.0.0', port: 8081 });
  expect(parseBindAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
  expect(parseBindAddress('0')).toBeUndefined();
  expect(() => parseBindAddress(':http')).toThrow('invalid bind address ":http"');
});
