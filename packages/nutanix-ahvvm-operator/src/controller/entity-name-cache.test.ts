import { expect, test } from 'vitest';
import { EntityNameCache } from './entity-name-cache.ts';

test('asks Prism once per name while the answer is fresh, and again for names it did not know', async () => {
  let now = 0;
  const asked: string[] = [];
  const inventory: Record<string, string[]> = { 'subnet/vlan10': ['s-1'], 'image/twice': ['i-1', 'i-2'] };
  const cache = new EntityNameCache(async (kind, name) => {
    asked.push(`${kind}/${name}`);
    await Promise.resolve();
    return inventory[`${kind}/${name}`] ?? [];
  }, { ttlMs: 1_000, now: () => now });

  const names = [{ kind: 'subnet', name: 'vlan10' }, { kind: 'image', name: 'twice' }, { kind: 'cluster', name: 'new' }] as const;
  const [first] = await Promise.all([cache.resolverFor(names), cache.resolverFor(names)]);
  expect(first('subnet', 'vlan10')).toEqual(['s-1']);
  expect(first('image', 'twice')).toEqual(['i-1', 'i-2']);
  expect(first('cluster', 'new')).toEqual([]);
  expect(asked.sort()).toEqual(['cluster/new', 'image/twice', 'subnet/vlan10']);

  inventory['cluster/new'] = ['c-1'];
  expect((await cache.resolverFor(names))('cluster', 'new')).toEqual(['c-1']);
  expect(asked).toHaveLength(4);

  now = 1_000;
  await cache.resolverFor([{ kind: 'subnet', name: 'vlan10' }]);
  expect(asked).toHaveLength(5);
});

test('a failed lookup is not remembered', async () => {
  let fail = true;
  const cache = new EntityNameCache(() => (fail ? Promise.reject(new Error('no answer')) : Promise.resolve(['s-1'])));
  await expect(cache.resolverFor([{ kind: 'subnet', name: 'vlan10' }])).rejects.toThrow('no answer');
  fail = false;
  expect((await cache.resolverFor([{ kind: 'subnet', name: 'vlan10' }]))('subnet', 'vlan10')).toEqual(['s-1']);
});

test('remembers subnets and storage containers per cluster, and asks for images and image lookups without one', async () => {
  const asked: string[] = [];
  const cache = new EntityNameCache((kind, name, { clusterUuid }) => {
    asked.push(`${kind}/${name}@${clusterUuid ?? '-'}`);
    return Promise.resolve(clusterUuid === 'pe-2' ? ['s-2'] : ['s-1']);
  });
  const names = [{ kind: 'subnet', name: 'vlan10' }, { kind: 'image', name: 'ubuntu' }, { kind: 'storage_container', name: 'default' }, { kind: 'image_lookup', name: '^ubuntu-' }] as const;
  expect((await cache.resolverFor(names, { clusterUuid: 'PE-1' }))('subnet', 'vlan10')).toEqual(['s-1']);
  expect((await cache.resolverFor(names, { clusterUuid: 'pe-2' }))('storage_container', 'default')).toEqual(['s-2']);
  await cache.resolverFor(names, { clusterUuid: 'pe-1' });
  expect(asked).toEqual(['subnet/vlan10@pe-1', 'image/ubuntu@-', 'storage_container/default@pe-1', 'image_lookup/^ubuntu-@-', 'subnet/vlan10@pe-2', 'storage_container/default@pe-2']);
});
