import { describe, expect, it } from 'vitest';
import { checkFromConfigMap } from './restore-check-source.ts';

const configMap = (data: Record<string, string>) => ({ metadata: { name: 'orders-drill' }, data });

describe('checkFromConfigMap: the check of spec.backup.verify.check.configMapRef', () => {
  it('is the query and the answer under data.query and data.expect, as written', () => {
    expect(checkFromConfigMap('orders-drill', 'shop', configMap({ query: 'SELECT count(*) > 0 FROM orders', expect: 't\n' }))).toEqual({
      ok: true,
      check: { query: 'SELECT count(*) > 0 FROM orders', expect: 't\n' },
    });
  });

  it('accepts an empty answer: a query whose expected answer is no rows', () => {
    expect(checkFromConfigMap('orders-drill', 'shop', configMap({ query: 'SELECT 1 WHERE false', expect: '' }))).toMatchObject({ ok: true });
  });

  it('says where to create a ConfigMap that is missing, and with what', () => {
    expect(checkFromConfigMap('orders-drill', 'shop', undefined)).toEqual({
      ok: false,
      message:
        'ConfigMap orders-drill (spec.backup.verify.check.configMapRef) in namespace shop was not found: create it with ' +
        'data.query (the SQL query) and data.expect (its answer as psql -At prints it)',
    });
  });

  it('names each key a ConfigMap lacks; a blank query counts as none', () => {
    expect(checkFromConfigMap('orders-drill', 'shop', configMap({}))).toMatchObject({ ok: false, message: expect.stringContaining('has no data.query and no data.expect: it needs data.query') as string });
    expect(checkFromConfigMap('orders-drill', 'shop', configMap({ query: '  \n', expect: 't' }))).toMatchObject({ ok: false, message: expect.stringContaining('in namespace shop has no data.query: it needs') as string });
    expect(checkFromConfigMap('orders-drill', 'shop', configMap({ query: 'SELECT 1' }))).toMatchObject({ ok: false, message: expect.stringContaining('has no data.expect: it needs') as string });
  });

  it('refuses a query longer than an inline one may be', () => {
    const result = checkFromConfigMap('orders-drill', 'shop', configMap({ query: `SELECT ${'1'.repeat(5000)}`, expect: '1' }));
    expect(result).toEqual({ ok: false, message: 'data.query of ConfigMap orders-drill (spec.backup.verify.check.configMapRef) in namespace shop is 5007 characters long; a check is at most 4096' });
  });
});
