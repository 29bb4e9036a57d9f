import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { stripManagedFields } from './transform.ts';

function parsedConfigMap(): { apiVersion: string; kind: string; metadata: Record<string, unknown>; data: Record<string, string> } {
  return JSON.parse(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        creationTimestamp: '2026-11-26T03:40:00Z',
        managedFields: [{ manager: 'core-bench', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }],
        name: 'web',
        namespace: 'shop',
        resourceVersion: '42',
        uid: '0b7c7f4e-5a8c-4c5e-9a1f-0c2d3e4f5a6b',
      },
      data: { a: '1' },
    }),
  ) as ReturnType<typeof parsedConfigMap>;
}

describe('stripManagedFields', () => {
  it('drops metadata.managedFields and keeps every other field, in order', () => {
    const obj = parsedConfigMap();
    const stripped = stripManagedFields(obj);
    expect(stripped).toBe(obj);
    expect(Object.keys(stripped.metadata)).toEqual(['creationTimestamp', 'name', 'namespace', 'resourceVersion', 'uid']);
    expect('managedFields' in stripped.metadata).toBe(false);
    expect(stripped.data).toEqual({ a: '1' });
  });

  it('leaves objects without managedFields (or without metadata) as they are', () => {
    const bare = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' } };
    const metadata = bare.metadata;
    expect(stripManagedFields(bare).metadata).toBe(metadata);
    expect(stripManagedFields({ apiVersion: 'v1', kind: 'List' })).toEqual({ apiVersion: 'v1', kind: 'List' });
  });

  it('keeps the stripped metadata out of dictionary mode, where `delete` would put it', () => {
    const stripped = stripManagedFields(parsedConfigMap()).metadata;
    const deleted = parsedConfigMap().metadata;
    delete deleted.managedFields;
    expect(hasFastProperties(deleted)).toBe(false);
    expect(hasFastProperties(stripped)).toBe(true);
  });
});

/** V8's own answer (`%HasFastProperties`): false for an object kept as a hash table. */
function hasFastProperties(obj: object): boolean {
  setFlagsFromString('--allow-natives-syntax');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8 intrinsics parse only in code compiled after the flag is set
  const check = new Function('obj', 'return %HasFastProperties(obj)') as (obj: object) => boolean;
  return check(obj);
}
