// The Prism v4.2 categories API over the v3 categories: every key:value pair listed with its extId (the one VMs'
// category references carry), $filter / $orderby / $page / $limit as the v4 list contract says, GET by extId, create
// and delete, and the v4 error body for what it refuses.

import { describe, expect, it } from 'vitest';
import { PRISM_CATEGORIES_PATH, VMM_VMS_PATH, categoryExtId } from '../src/index.ts';
import { PrismTestClient } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, firstAppMessage, v4VmBody } from './v4-client.ts';

interface CategoryJson {
  $objectType: string;
  extId: string;
  key: string;
  value: string;
  description?: string;
  type: string;
  ownerUuid: string;
}

interface CategoryListJson {
  $objectType: string;
  $dataItemDiscriminator?: string;
  data?: CategoryJson[];
  metadata: { totalAvailableResults: number; links: { href: string; rel: string }[] };
}

describe('the v4 categories API', () => {
  const prism = useFastSimulator({
    categories: [
      { name: 'Environment', values: ['Dev', 'Prod'] },
      { name: 'Team', values: ['web', 'db', 'ops'] },
    ],
  }, (simulator) => new V4TestClient(simulator));

  async function list(query: string): Promise<CategoryListJson> {
    const reply = await prism.client.request('GET', `${PRISM_CATEGORIES_PATH}${query}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.json as CategoryListJson;
  }

  it('lists every key:value pair as a prism.v4.config.Category with the extId v4 VMs refer to', async () => {
    const answer = await list('');
    expect(answer).toMatchObject({ $objectType: 'prism.v4.config.ListCategoriesApiResponse', $dataItemDiscriminator: 'List<prism.v4.config.Category>', metadata: { totalAvailableResults: 5 } });
    expect(answer.data?.map((c) => `${c.key}=${c.value}`)).toEqual(['Environment=Dev', 'Environment=Prod', 'Team=web', 'Team=db', 'Team=ops']);
    expect(answer.data?.[0]).toEqual({
      $objectType: 'prism.v4.config.Category',
      $reserved: { $fv: 'v4.r2' },
      extId: categoryExtId('Environment', 'Dev'),
      key: 'Environment',
      value: 'Dev',
      type: 'USER',
      ownerUuid: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
    });
  });

  it('filters on key, value, extId and type', async () => {
    const one = await list(`?$filter=${encodeURIComponent("key eq 'Team' and value eq 'ops'")}`);
    expect(one.data?.map((c) => c.extId)).toEqual([categoryExtId('Team', 'ops')]);
    const byExtId = await list(`?$filter=${encodeURIComponent(`extId eq '${categoryExtId('Environment', 'Prod')}'`)}`);
    expect(byExtId.data?.map((c) => c.value)).toEqual(['Prod']);
    expect((await list(`?$filter=${encodeURIComponent("type eq 'USER' and startswith(key,'Env')")}`)).metadata.totalAvailableResults).toBe(2);
    const none = await list(`?$filter=${encodeURIComponent("key eq 'Nope'")}`);
    expect(none.data).toBeUndefined();
    expect(none.metadata.totalAvailableResults).toBe(0);
  });

  it('pages with $page and $limit, links included, and sorts with $orderby', async () => {
    const second = await list('?$orderby=value%20desc&$page=1&$limit=2');
    expect(second.data?.map((c) => c.value)).toEqual(['db', 'Prod']);
    expect(second.metadata.totalAvailableResults).toBe(5);
    expect(second.metadata.links.map((l) => l.rel)).toEqual(['self', 'first', 'prev', 'next', 'last']);
  });

  it('refuses what it does not simulate or cannot parse with a 400 that says why', async () => {
    for (const [query, text] of [
      ['?$filter=ownerUuid%20eq%20%27x%27', "'ownerUuid' is not a filterable field"],
      ['?$limit=101', '$limit must be an integer between 1 and 100'],
      ['?$orderby=description', "$orderby 'description' is not supported"],
      ['?$expand=associations', '$expand is not supported'],
    ] as const) {
      const reply = await prism.client.request('GET', `${PRISM_CATEGORIES_PATH}${query}`);
      expect(reply.status, query).toBe(400);
      expect(firstAppMessage(reply)).toMatchObject({ $objectType: 'prism.v4.error.AppMessage', errorGroup: 'INVALID_ARGUMENT' });
      expect(firstAppMessage(reply).message).toContain(text);
    }
  });

  it('gets one category by extId, and answers 404 CATEGORY_NOT_FOUND for an extId nothing has', async () => {
    const extId = categoryExtId('Team', 'web');
    const reply = await prism.client.request('GET', `${PRISM_CATEGORIES_PATH}/${extId}`);
    expect(reply.json).toMatchObject({ $objectType: 'prism.v4.config.GetCategoryApiResponse', $dataItemDiscriminator: 'prism.v4.config.Category', data: { extId, key: 'Team', value: 'web' } });
    const missing = await prism.client.request('GET', `${PRISM_CATEGORIES_PATH}/${categoryExtId('Team', 'qa')}`);
    expect(missing.status).toBe(404);
    expect(firstAppMessage(missing)).toMatchObject({ $objectType: 'prism.v4.error.AppMessage', errorGroup: 'CATEGORY_NOT_FOUND' });
  });

  it('shows categories made over v3 at once, and they are what a v4 VM carries and may be given', async () => {
    expect(await v3Put('/categories/Tier', { name: 'Tier' })).toBe(201);
    expect(await v3Put('/categories/Tier/gold', { value: 'gold', description: 'the best' })).toBe(201);
    const [gold] = (await list(`?$filter=${encodeURIComponent("key eq 'Tier'")}`)).data ?? [];
    expect(gold).toMatchObject({ key: 'Tier', value: 'gold', description: 'the best', extId: categoryExtId('Tier', 'gold') });

    const vmExtId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'categorised', { categories: [{ extId: gold?.extId }] }));
    const { vm } = await prism.client.getVm(vmExtId);
    expect(vm.categories.map((c) => c.extId)).toEqual([gold?.extId]);
    expect(prism.simulator.inspect().vms.find((v) => v.uuid === vmExtId)?.categoriesMapping).toEqual({ Tier: ['gold'] });
  });

  it('creates a category (its key too when new) with an NTNX-Request-Id, refuses it twice, and deletes it unless a VM carries it', async () => {
    const created = await prism.client.request('POST', PRISM_CATEGORIES_PATH, { $objectType: 'prism.v4.config.Category', key: 'KubernetesClusterName', value: 'c1', description: 'made by CAPX' });
    expect(created.status).toBe(201);
    const extId = categoryExtId('KubernetesClusterName', 'c1');
    expect(created.json).toMatchObject({ $objectType: 'prism.v4.config.CreateCategoryApiResponse', data: { $objectType: 'prism.v4.config.Category', extId, key: 'KubernetesClusterName', value: 'c1', description: 'made by CAPX' } });
    expect(prism.simulator.inspect().categories.find((c) => c.name === 'KubernetesClusterName')?.values).toEqual(['c1']);

    const again = await prism.client.request('POST', PRISM_CATEGORIES_PATH, { key: 'KubernetesClusterName', value: 'c1' });
    expect(again.status).toBe(409);
    expect(firstAppMessage(again)).toMatchObject({ $objectType: 'prism.v4.error.AppMessage', errorGroup: 'CATEGORY_ALREADY_EXISTS' });
    const bad = await prism.client.request('POST', PRISM_CATEGORIES_PATH, { key: 'a/b', value: 'c' });
    expect(bad.status).toBe(400);
    expect(firstAppMessage(bad).message).toContain("'a/b' does not match");
    expect((await prism.client.request('POST', PRISM_CATEGORIES_PATH, { key: 'K', value: 'v' }, { requestId: null })).status).toBe(400);

    const vmExtId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'in-cluster-c1', { categories: [{ extId }] }));
    const inUse = await prism.client.request('DELETE', `${PRISM_CATEGORIES_PATH}/${extId}`, undefined, { ifMatch: await categoryEtag(extId) });
    expect(inUse.status).toBe(409);
    expect(firstAppMessage(inUse).errorGroup).toBe('CATEGORY_VALUE_IN_USE');
    await prism.client.writeWithEtag('DELETE', `${VMM_VMS_PATH}/${vmExtId}`, vmExtId);
    expect((await prism.client.request('DELETE', `${PRISM_CATEGORIES_PATH}/${extId}`, undefined, { ifMatch: await categoryEtag(extId) })).status).toBe(204);
    expect((await prism.client.request('GET', `${PRISM_CATEGORIES_PATH}/${extId}`)).status).toBe(404);
  });

  it('sends an ETag with a category and deletes it only with that ETag in If-Match: 428 without, 412 after a change', async () => {
    expect((await prism.client.request('POST', PRISM_CATEGORIES_PATH, { key: 'KubernetesClusterName', value: 'c2' })).status).toBe(201);
    const extId = categoryExtId('KubernetesClusterName', 'c2');
    const read = await categoryEtag(extId);
    expect(read).toMatch(/\S/);
    expect(await categoryEtag(extId)).toBe(read);

    const missing = await prism.client.request('DELETE', `${PRISM_CATEGORIES_PATH}/${extId}`);
    expect(missing.status).toBe(428);
    expect(firstAppMessage(missing)).toMatchObject({ $objectType: 'prism.v4.error.AppMessage', errorGroup: 'MISSING_ETAG_HEADER' });

    expect(await v3Put('/categories/KubernetesClusterName/c2', { value: 'c2', description: 'changed over v3' })).toBe(200);
    const stale = await prism.client.request('DELETE', `${PRISM_CATEGORIES_PATH}/${extId}`, undefined, { ifMatch: read });
    expect(stale.status).toBe(412);
    expect(firstAppMessage(stale).errorGroup).toBe('INVALID_ETAG_HEADER');
    expect((await prism.client.request('GET', `${PRISM_CATEGORIES_PATH}/${extId}`)).status).toBe(200);

    expect((await prism.client.request('DELETE', `${PRISM_CATEGORIES_PATH}/${extId}`, undefined, { ifMatch: await categoryEtag(extId) })).status).toBe(204);
  });

  /** The ETag header of a GET of the category, as CAPX reads it before the delete. */
  async function categoryEtag(extId: string): Promise<string> {
    const reply = await prism.client.request('GET', `${PRISM_CATEGORIES_PATH}/${extId}`);
    const etag = reply.headers.get('etag');
    if (reply.status !== 200 || etag === null) throw new Error(`GET category ${extId} answered ${reply.status} without an ETag: ${reply.text}`);
    return etag;
  }

  async function v3Put(path: string, body: unknown): Promise<number> {
    return (await new PrismTestClient(prism.simulator).request('PUT', path, body)).status;
  }
});
