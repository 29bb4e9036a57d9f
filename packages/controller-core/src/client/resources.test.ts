import { describe, expect, it } from 'vitest';
import { resourcePath } from './resource-path.ts';
import { Resources, apiVersionOf } from './resources.ts';

describe('Resources', () => {
  it('addresses ServiceAccounts in the core group, per namespace', () => {
    expect(apiVersionOf(Resources.ServiceAccount)).toBe('v1');
    expect(resourcePath(Resources.ServiceAccount, { namespace: 'shop', name: 'foodb-backup' })).toBe(
      '/api/v1/namespaces/shop/serviceaccounts/foodb-backup',
    );
  });
});
