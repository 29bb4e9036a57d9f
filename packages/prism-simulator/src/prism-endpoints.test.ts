import { describe, expect, it } from 'vitest';
import { kindOfPath, matchEndpoint } from './prism-endpoints.ts';

describe('matchEndpoint', () => {
  it('decodes the path parameters', () => {
    expect(matchEndpoint('GET', '/idempotence_identifiers/my%20client')).toEqual({ endpoint: 'GET /idempotence_identifiers/{client_identifier}', param: 'my client', params: ['my client'] });
    expect(matchEndpoint('POST', '/clusters/list')).toEqual({ endpoint: 'POST /clusters/list', param: undefined, params: [] });
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
