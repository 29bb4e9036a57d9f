import { describe, expect, it } from 'vitest';
import { DEFAULT_CATEGORIES } from '../src/index.ts';
import { GO_CATEGORY_KEY_LIST, GO_CATEGORY_KEY_STATUS, GO_CATEGORY_VALUE_LIST, GO_CATEGORY_VALUE_STATUS, goDecodeProblems, goError } from './go-client.ts';
import { firstMessage, type AcceptedJson, type ErrorJson, type VmJson } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';

interface CategoryListJson {
  api_version: string;
  metadata: { kind: string; offset: number; length: number; total_matches: number; filter?: string };
  entities: { name: string; value?: string; description?: string; system_defined: boolean }[];
}

/** The whole body of a categories API error: the v3 error shape with kind `category` and one message. */
function categoryError(code: number, reason: string, message: string): ErrorJson {
  return { api_version: '3.1', code, kind: 'category', message_list: [{ reason, message }], state: 'ERROR' };
}

describe('the categories API', () => {
  const prism = useFastSimulator({ categories: [{ name: 'Environment', values: ['Dev', 'Prod'] }, { name: 'AppTier', description: 'tiers', values: [] }] });

  it('lists the keys with POST /categories/list, in the shapes of the v3 list calls', async () => {
    const reply = await prism.client.request('POST', '/categories/list', { kind: 'category' });
    expect(reply.status).toBe(200);
    expect(goDecodeProblems(reply.json, GO_CATEGORY_KEY_LIST)).toEqual([]);
    expect(reply.json).toEqual({
      api_version: '3.1',
      metadata: { kind: 'category', offset: 0, length: 2, total_matches: 2 },
      entities: [
        { name: 'Environment', system_defined: false },
        { name: 'AppTier', description: 'tiers', system_defined: false },
      ],
    });
    // No body, `{}` (what prism-go-client sends), paging, sorting and a name filter.
    expect((await prism.client.request('POST', '/categories/list')).status).toBe(200);
    const page = (await prism.client.request('POST', '/categories/list', { offset: 1, length: 1, sort_attribute: 'name', sort_order: 'ASCENDING' })).json as CategoryListJson;
    expect(page.metadata).toMatchObject({ offset: 1, length: 1, total_matches: 2 });
    expect(page.entities.map((e) => e.name)).toEqual(['Environment']);
    const filtered = (await prism.client.request('POST', '/categories/list', { filter: 'name==AppTier' })).json as CategoryListJson;
    expect(filtered.entities.map((e) => e.name)).toEqual(['AppTier']);
  });

  it('refuses a list body that breaks category_list_metadata, with kind category', async () => {
    const badKind = await prism.client.request('POST', '/categories/list', { kind: 'vm' });
    expect(badKind.status).toBe(422);
    expect(badKind.json).toMatchObject({ code: 422, kind: 'category', state: 'ERROR', message_list: [{ reason: 'INVALID_REQUEST', details: { kind: ["'vm' is not one of ['category']"] } }] });
    const badFilter = await prism.client.request('POST', '/categories/Environment/list', { filter: 'name==Dev' });
    expect(badFilter.status).toBe(400);
    expect(firstMessage(badFilter).details).toEqual({ filter: ["unsupported filter attribute 'name'; the simulator supports value here"] });
  });

  it('creates a key with PUT (201), reads it with GET, replaces it with PUT (200) and deletes it', async () => {
    const created = await prism.client.request('PUT', '/categories/Team', { name: 'Team', description: 'Owning team', capabilities: { cardinality: 64 } });
    expect(created.status).toBe(201);
    expect(goDecodeProblems(created.json, GO_CATEGORY_KEY_STATUS)).toEqual([]);
    expect(created.json).toEqual({ api_version: '3.1', name: 'Team', description: 'Owning team', capabilities: { cardinality: 64 }, system_defined: false });
    const read = await prism.client.request('GET', '/categories/Team');
    expect(read.status).toBe(200);
    expect(read.json).toEqual(created.json);
    const replaced = await prism.client.request('PUT', '/categories/Team', { api_version: '3.1', name: 'Team' });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toEqual({ api_version: '3.1', name: 'Team', system_defined: false });
    const deleted = await prism.client.request('DELETE', '/categories/Team');
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expect(goError(deleted)).toBeUndefined();
    expect((await prism.client.request('GET', '/categories/Team')).status).toBe(404);
  });

  it('answers an unknown key with 404 ENTITY_NOT_FOUND, on every key and value endpoint', async () => {
    for (const [method, path] of [
      ['GET', '/categories/Nope'],
      ['DELETE', '/categories/Nope'],
      ['POST', '/categories/Nope/list'],
      ['GET', '/categories/Nope/x'],
      ['PUT', '/categories/Nope/x'],
      ['DELETE', '/categories/Nope/x'],
    ] as const) {
      const reply = await prism.client.request(method, path, method === 'PUT' ? { value: 'x' } : undefined);
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.json).toEqual(categoryError(404, 'ENTITY_NOT_FOUND', 'Category Nope does not exist.'));
      // TF's category-key acceptance test and CAPX's getCategoryKey look for exactly this reason.
      expect(goError(reply)).toContain('ENTITY_NOT_FOUND');
    }
  });

  it('refuses a key whose name breaks the swagger pattern or differs from the path', async () => {
    const mismatch = await prism.client.request('PUT', '/categories/Team', { name: 'Other' });
    expect(mismatch.status).toBe(422);
    expect(firstMessage(mismatch)).toMatchObject({ reason: 'INVALID_REQUEST', details: { name: ["'Other' is not the key named in the path ('Team')"] } });
    const noName = await prism.client.request('PUT', '/categories/Team', { description: 'x' });
    expect(noName.status).toBe(422);
    expect(firstMessage(noName).details).toEqual({ '': ["'name' is a required property"] });
    const badName = await prism.client.request('PUT', `/categories/${encodeURIComponent('a/b!')}`, { name: 'a/b!' });
    expect(badName.status).toBe(422);
    const tooLong = 'k'.repeat(65);
    const long = await prism.client.request('PUT', `/categories/${tooLong}`, { name: tooLong });
    expect(long.status).toBe(422);
    expect(firstMessage(long).details?.name?.[0]).toContain('too long');
    // Names with inner spaces are allowed by the pattern.
    expect((await prism.client.request('PUT', `/categories/${encodeURIComponent('Cost Center')}`, { name: 'Cost Center' })).status).toBe(201);
    expect((await prism.client.request('DELETE', `/categories/${encodeURIComponent('Cost Center')}`)).status).toBe(200);
  });

  it('creates values with PUT (201), lists, reads, replaces (200) and deletes them', async () => {
    const created = await prism.client.request('PUT', '/categories/AppTier/web', { value: 'web', description: 'front end' });
    expect(created.status).toBe(201);
    expect(goDecodeProblems(created.json, GO_CATEGORY_VALUE_STATUS)).toEqual([]);
    expect(created.json).toEqual({ api_version: '3.1', name: 'AppTier', value: 'web', description: 'front end', system_defined: false });
    expect((await prism.client.request('PUT', '/categories/AppTier/db', {})).status).toBe(201);
    expect((await prism.client.request('GET', '/categories/AppTier/web')).json).toEqual(created.json);
    const listed = await prism.client.request('POST', '/categories/AppTier/list', {});
    expect(goDecodeProblems(listed.json, GO_CATEGORY_VALUE_LIST)).toEqual([]);
    expect(listed.json).toEqual({
      api_version: '3.1',
      metadata: { kind: 'category', offset: 0, length: 2, total_matches: 2 },
      entities: [
        { name: 'AppTier', value: 'web', description: 'front end', system_defined: false },
        { name: 'AppTier', value: 'db', system_defined: false },
      ],
    });
    const sorted = (await prism.client.request('POST', '/categories/AppTier/list', { sort_attribute: 'value', filter: 'value!=nothing' })).json as CategoryListJson;
    expect(sorted.entities.map((e) => e.value)).toEqual(['db', 'web']);
    const replaced = await prism.client.request('PUT', '/categories/AppTier/web', { value: 'web' });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toEqual({ api_version: '3.1', name: 'AppTier', value: 'web', system_defined: false });
    for (const value of ['web', 'db']) expect((await prism.client.request('DELETE', `/categories/AppTier/${value}`)).status).toBe(200);
    expect(((await prism.client.request('POST', '/categories/AppTier/list', {})).json as CategoryListJson).entities).toEqual([]);
  });

  it('answers an unknown value of a known key with 404 CATEGORY_NAME_VALUE_MISMATCH, as CAPX and TF expect', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const reply = await prism.client.request(method, '/categories/Environment/Nope');
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual(categoryError(404, 'CATEGORY_NAME_VALUE_MISMATCH', 'Category Environment has no value Nope.'));
      expect(goError(reply)).toContain('CATEGORY_NAME_VALUE_MISMATCH');
    }
  });

  it('refuses a value that breaks the pattern or differs from the path', async () => {
    const mismatch = await prism.client.request('PUT', '/categories/Environment/Test', { value: 'Other' });
    expect(mismatch.status).toBe(422);
    expect(firstMessage(mismatch).details).toEqual({ value: ["'Other' is not the value named in the path ('Test')"] });
    const badType = await prism.client.request('PUT', '/categories/Environment/Test', { description: 7 });
    expect(badType.status).toBe(422);
    expect(badType.json).toMatchObject({ kind: 'category' });
    expect((await prism.client.request('PUT', `/categories/Environment/${encodeURIComponent('a;b')}`, {})).status).toBe(422);
  });

  it('refuses to delete a key that still has values (409), and deletes it once they are gone', async () => {
    expect((await prism.client.request('PUT', '/categories/Owner', { name: 'Owner' })).status).toBe(201);
    expect((await prism.client.request('PUT', '/categories/Owner/alice', { value: 'alice' })).status).toBe(201);
    const refused = await prism.client.request('DELETE', '/categories/Owner');
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual(categoryError(409, 'CATEGORY_KEY_HAS_VALUES', 'Category Owner still has 1 value(s) (alice); delete them before the key.'));
    expect(goError(refused)).toContain('CATEGORY_KEY_HAS_VALUES');
    expect((await prism.client.request('GET', '/categories/Owner/alice')).status).toBe(200);
    expect((await prism.client.request('DELETE', '/categories/Owner/alice')).status).toBe(200);
    expect((await prism.client.request('DELETE', '/categories/Owner')).status).toBe(200);
  });

  it('shows the current keys and values in inspect()', () => {
    expect(prism.simulator.inspect().categories).toEqual([
      { name: 'Environment', values: ['Dev', 'Prod'] },
      { name: 'AppTier', description: 'tiers', values: [] },
    ]);
  });
});

describe('categories on VMs', () => {
  const prism = useFastSimulator();

  it('starts with the default Environment values, so the operator samples work without setup', async () => {
    expect(DEFAULT_CATEGORIES).toEqual([{ name: 'Environment', description: 'Environment of the workload (a simulator seed).', values: ['Dev', 'Testing', 'Staging', 'Prod', 'Production'] }]);
    const values = (await prism.client.request('POST', '/categories/Environment/list', {})).json as CategoryListJson;
    expect(values.entities.map((e) => e.value)).toEqual(['Dev', 'Testing', 'Staging', 'Prod', 'Production']);
  });

  it('keeps metadata.categories and shows them in categories_mapping too', async () => {
    const { uuid, taskUuid, reply } = await prism.client.createVm({ name: 'tagged', resources: {} }, { categories: { Environment: 'Dev' } });
    expect((reply.json as AcceptedJson).metadata).toMatchObject({ categories: { Environment: 'Dev' }, use_categories_mapping: false });
    expect((await prism.client.waitForTask(taskUuid)).status).toBe('SUCCEEDED');
    const vm = await prism.client.getVm(uuid);
    expect(vm.metadata.categories).toEqual({ Environment: 'Dev' });
    expect((vm.metadata as VmJson['metadata'] & { categories_mapping: unknown }).categories_mapping).toEqual({ Environment: ['Dev'] });
    expect(prism.simulator.inspect().vms.find((v) => v.uuid === uuid)).toMatchObject({ categories: { Environment: 'Dev' }, categoriesMapping: { Environment: ['Dev'] } });
  });

  it('takes several values of a key through categories_mapping with use_categories_mapping', async () => {
    const { uuid, taskUuid } = await prism.client.createVm({ name: 'multi', resources: {} }, { use_categories_mapping: true, categories_mapping: { Environment: ['Dev', 'Testing'] }, categories: { Ignored: 'x' } });
    expect((await prism.client.waitForTask(taskUuid)).status).toBe('SUCCEEDED');
    const vm = await prism.client.getVm(uuid);
    expect((vm.metadata as VmJson['metadata'] & { categories_mapping: unknown }).categories_mapping).toEqual({ Environment: ['Dev', 'Testing'] });
    // `categories` holds one value per key, so a key with two is not in it.
    expect(vm.metadata.categories).toEqual({});
  });

  it('refuses a VM with a category that does not exist, 422 naming it, on create and on update', async () => {
    const refused = await prism.client.request('POST', '/vms', { metadata: { kind: 'vm', categories: { Environment: 'Dev', KubernetesClusterName: 'c1' } }, spec: { name: 'unknown-category', resources: {} } });
    expect(refused.status).toBe(422);
    const body = refused.json as ErrorJson;
    expect(body).toMatchObject({ code: 422, kind: 'vm', state: 'ERROR' });
    expect(firstMessage(refused)).toEqual({
      reason: 'INVALID_REQUEST',
      message: 'Category KubernetesClusterName:c1 does not exist; create the key and value (PUT /categories/{name}/{value}) first.',
      details: { 'metadata.categories': ['Category KubernetesClusterName:c1 does not exist.'] },
    });
    expect(prism.simulator.inspect().vms.map((vm) => vm.name)).not.toContain('unknown-category');
    const unknownValue = await prism.client.request('POST', '/vms', { metadata: { kind: 'vm', use_categories_mapping: true, categories_mapping: { Environment: ['Dev', 'Nope'] } }, spec: { name: 'x', resources: {} } });
    expect(unknownValue.status).toBe(422);
    expect(firstMessage(unknownValue).message).toContain('Environment:Nope');

    const vm = await prism.client.createReadyVm({ name: 'later-tagged', resources: {} });
    const put = await prism.client.request('PUT', `/vms/${vm.metadata.uuid}`, { metadata: { kind: 'vm', spec_version: vm.metadata.spec_version, categories: { Team: 'a' } }, spec: vm.spec });
    expect(put.status).toBe(422);
    expect(firstMessage(put).message).toContain('Team:a');
    expect((await prism.client.getVm(vm.metadata.uuid)).metadata.spec_version).toBe(vm.metadata.spec_version);
  });

  it('refuses to delete a value a VM carries (409) until the VM is gone or drops it', async () => {
    expect((await prism.client.request('PUT', '/categories/Environment/Temp', {})).status).toBe(201);
    const vm = await prism.client.createReadyVm({ name: 'carrier', resources: {} });
    const current = await prism.client.getVm(vm.metadata.uuid);
    const tag = await prism.client.request('PUT', `/vms/${vm.metadata.uuid}`, { metadata: { kind: 'vm', spec_version: current.metadata.spec_version, categories: { Environment: 'Temp' } }, spec: current.spec });
    expect(tag.status).toBe(202);
    // Already refused while the update that assigns it runs.
    const whileRunning = await prism.client.request('DELETE', '/categories/Environment/Temp');
    expect(whileRunning.status).toBe(409);
    await prism.client.waitForTask((tag.json as AcceptedJson).status.execution_context.task_uuid);
    const refused = await prism.client.request('DELETE', '/categories/Environment/Temp');
    expect(refused.status).toBe(409);
    expect(firstMessage(refused)).toEqual({ reason: 'CATEGORY_VALUE_IN_USE', message: 'Category Environment:Temp is assigned to 1 VM(s) (carrier); remove it from them first.' });
    expect(refused.json).toMatchObject({ kind: 'category' });
    const deleted = await prism.client.request('DELETE', `/vms/${vm.metadata.uuid}`);
    await prism.client.waitForTask((deleted.json as AcceptedJson).status.execution_context.task_uuid);
    expect((await prism.client.request('DELETE', '/categories/Environment/Temp')).status).toBe(200);
  });
});
