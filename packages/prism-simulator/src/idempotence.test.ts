import { describe, expect, it } from 'vitest';
import { DEFAULT_VALID_MINUTES, IdempotenceRegistry } from './idempotence.ts';

describe('IdempotenceRegistry', () => {
  it('issues UUIDs that stay valid for the requested minutes', () => {
    const clock = { now: Date.UTC(2024, 11, 10, 16, 52, 2) };
    const registry = new IdempotenceRegistry(() => clock.now);
    const batch = registry.issue({ client_identifier: 'testclient', count: 2, valid_duration_in_minutes: 10 });
    expect(batch).toMatchObject({ client_identifier: 'testclient', count: 2, expiration_time: '2024-12-10T17:02:02Z' });
    expect(batch.uuid_list).toHaveLength(2);
    const [uuid = ''] = batch.uuid_list;
    expect(registry.isValid(uuid)).toBe(true);
    expect(registry.isValid(uuid.toUpperCase())).toBe(true);
    clock.now += 10 * 60_000;
    expect(registry.isValid(uuid)).toBe(false);
    expect(registry.forClient('testclient')).toBeUndefined();
  });

  it('groups a client identifier’s UUIDs and forgets them on delete', () => {
    const registry = new IdempotenceRegistry(() => 0);
    const first = registry.issue({ client_identifier: 'c', count: 1 });
    const second = registry.issue({ client_identifier: 'c', count: 2 });
    registry.issue({ count: 1 });
    expect(first.expiration_time).toBe(new Date(DEFAULT_VALID_MINUTES * 60_000).toISOString().replace('.000', ''));
    expect(registry.forClient('c')?.uuid_list).toEqual([...first.uuid_list, ...second.uuid_list]);
    expect(registry.deleteClient('c')).toBe(true);
    expect(registry.deleteClient('c')).toBe(false);
    expect(second.uuid_list.some((uuid) => registry.isValid(uuid))).toBe(false);
  });
});
