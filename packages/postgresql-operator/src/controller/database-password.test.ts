import { describe, expect, it } from 'vitest';
import { databasePassword } from './database-password.ts';

const secret = (data: Record<string, string>) => ({ metadata: { name: 'foodb-password', resourceVersion: '42' }, data });

describe('databasePassword', () => {
  it("reads the seed's key exactly as stored", () => {
    expect(databasePassword('foodb-password', 'shop', secret({ postgresql_password: 'bXlwYXNzd29yZA==' }))).toEqual({ ok: true, password: 'mypassword', secretVersion: '42' });
  });

  it('says what to fix, naming the Secret and the key but never a value', () => {
    expect(databasePassword('foodb-password', 'shop', undefined)).toEqual({
      ok: false,
      reason: 'SecretNotFound',
      message: 'Secret foodb-password (spec.password) was not found in namespace shop: create it with the password under data.postgresql_password',
    });
    const missing = databasePassword('foodb-password', 'shop', secret({ password: 'c2VjcmV0' }));
    expect(missing).toMatchObject({ ok: false, reason: 'SecretKeyMissing' });
    expect(JSON.stringify(missing)).not.toContain('c2VjcmV0');
    expect(databasePassword('foodb-password', 'shop', secret({ postgresql_password: '' }))).toMatchObject({ ok: false, reason: 'PasswordEmpty' });
  });
});
