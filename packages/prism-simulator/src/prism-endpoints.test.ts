import { describe, expect, it } from 'vitest';
import { kindOfPath, matchEndpoint } from './prism-endpoints.ts';

describe('matchEndpoint', () => {
  it('decodes every path parameter, in order', () => {
    expect(matchEndpoint('GET', '/categories/Cost%20Center/Team%20A')).toEqual({ endpoint: 'GET /categories/{name}/{value}', param: 'Cost Center', params: ['Cost Center', 'Team A'] });
    expect(matchEndpoint('POST', '/categories/list')).toEqual({ endpoint: 'POST /categories/list', param: undefined, params: [] });
    expect(matchEndpoint('POST', '/categories/Team/list')).toEqual({ endpoint: 'POST /categories/{name}/list', param: 'Team', params: ['Team'] });
    expect(matchEndpoint('GET', '/clusters/abc/')).toMatchObject({ endpoint: 'GET /clusters/{uuid}', params: ['abc'] });
    expect(matchEndpoint('DELETE', '/clusters/abc')).toBeUndefined();
  });
});

describe('kindOfPath', () => {
  it('names the kind of the collection a path addresses', () => {
    expect(kindOfPath('/api/nutanix/v3/vms/list')).toBe('vm');
    expect(kindOfPath('/api/nutanix/v3/clusters/x')).toBe('cluster');
    expect(kindOfPath('/api/nutanix/v3/categories/Team/list')).toBe('category');
    expect(kindOfPath('/api/nutanix/v3/idempotence_identifiers/c')).toBe('idempotence_identifier');
    expect(kindOfPath('/api/nutanix/v3/users/me')).toBe('user');
    expect(kindOfPath('/api/nutanix/v3/prism_central')).toBe('prism_central');
    expect(kindOfPath('/api/nutanix/v3/access_control_policies/list')).toBe('access_control_policy');
  });

  it('has none for a path that addresses no entity', () => {
    for (const path of ['/', '/api/nutanix/v3', '/api/nutanix/v3/', '/api/nutanix/v2.0/vms', '/api/nutanix/v3/%20x']) expect(kindOfPath(path)).toBeUndefined();
  });
});
