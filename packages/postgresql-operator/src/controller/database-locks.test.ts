import { expect, test } from 'vitest';
import { DatabaseLocks } from './database-locks.ts';

test('one backup per database at a time; other databases are not held up', () => {
  const locks = new DatabaseLocks();
  expect(locks.tryAcquire('shop/foodb', 'foodb-1')).toBe(true);
  expect(locks.tryAcquire('shop/foodb', 'foodb-1')).toBe(true);
  expect(locks.tryAcquire('shop/foodb', 'foodb-2')).toBe(false);
  expect(locks.holder('shop/foodb')).toBe('foodb-1');
  expect(locks.tryAcquire('shop/other', 'other-1')).toBe(true);
  locks.release('shop/foodb', 'foodb-2');
  expect(locks.holder('shop/foodb')).toBe('foodb-1');
  locks.release('shop/foodb', 'foodb-1');
  expect(locks.tryAcquire('shop/foodb', 'foodb-2')).toBe(true);
});
