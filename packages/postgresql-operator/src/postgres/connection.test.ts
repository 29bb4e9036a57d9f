import { describe, expect, it } from 'vitest';
import {
  OPERATOR_APPLICATION_NAME,
  connectionParameters,
  maskSecrets,
  passwordFromSecret,
  pgClientConfig,
  pgToolEnvironment,
  withConnection,
  withMaskedSecrets,
} from './connection.ts';

describe('connection parameters', () => {
  const parameters = connectionParameters({ podIP: '10.1.2.3', database: 'foo', user: 'foo', password: 'mypassword' });

  it('connect to the pod on 5432 unless told otherwise', () => {
    expect(parameters).toEqual({ host: '10.1.2.3', port: 5432, database: 'foo', user: 'foo', password: 'mypassword' });
    expect(pgClientConfig(parameters)).toMatchObject({
      host: '10.1.2.3',
      port: 5432,
      database: 'foo',
      user: 'foo',
      password: 'mypassword',
      application_name: OPERATOR_APPLICATION_NAME,
    });
  });

  it('give pg tools the password in their environment only, and none of the operator\'s variables', () => {
    process.env.OPERATOR_TEST_SECRET = 'do-not-leak';
    try {
      const env = pgToolEnvironment(parameters);
      expect(env).toMatchObject({ PGHOST: '10.1.2.3', PGPORT: '5432', PGDATABASE: 'foo', PGUSER: 'foo', PGPASSWORD: 'mypassword' });
      expect(Object.keys(env).sort()).toEqual(['LC_ALL', 'PATH', 'PGCONNECT_TIMEOUT', 'PGDATABASE', 'PGHOST', 'PGPASSWORD', 'PGPORT', 'PGUSER']);
    } finally {
      delete process.env.OPERATOR_TEST_SECRET;
    }
  });
});

describe('passwordFromSecret', () => {
  it('reads the seed\'s Secret as the postgres image would (bytes as stored, no trimming)', () => {
    expect(passwordFromSecret({ data: { postgresql_password: 'bXlwYXNzd29yZA==' } })).toEqual({ ok: true, password: 'mypassword' });
    expect(passwordFromSecret({ data: { postgresql_password: Buffer.from(' pw\n').toString('base64') } })).toEqual({
      ok: true,
      password: ' pw\n',
    });
  });

  it('says which Secret lacks the key or has an empty password', () => {
    expect(passwordFromSecret({ metadata: { name: 'foodb-password' }, data: { password: 'eA==' } })).toEqual({
      ok: false,
      reason: 'KeyMissing',
      message: 'Secret foodb-password has no key postgresql_password',
    });
    expect(passwordFromSecret({ metadata: { name: 'foodb-password' }, data: { postgresql_password: '' } })).toMatchObject({
      ok: false,
      reason: 'PasswordEmpty',
    });
  });
});

describe('masking', () => {
  it('removes every occurrence of the password from messages and stacks, keeping the error object', () => {
    expect(maskSecrets('pw=hunter2 and again hunter2', ['hunter2', ''])).toBe('pw=[REDACTED] and again [REDACTED]');
    const error = Object.assign(new Error('login with hunter2 failed'), { code: '28P01' });
    const masked = withMaskedSecrets(error, ['hunter2']);
    expect(masked).toBe(error);
    expect(masked.message).toBe('login with [REDACTED] failed');
    expect(masked.stack).not.toContain('hunter2');
    expect((masked as Error & { code: string }).code).toBe('28P01');
  });

  it('connection failures never carry the password', async () => {
    const parameters = connectionParameters({ podIP: '127.0.0.1', port: 1, database: 'foo', user: 'foo', password: 'hunter2' });
    const error = await withConnection(parameters, () => Promise.resolve()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).stack)).not.toContain('hunter2');
  });
});
