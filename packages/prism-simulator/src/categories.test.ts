import { describe, expect, it } from 'vitest';
import { CategoryStore, vmCategoryAssignment } from './categories.ts';

describe('vmCategoryAssignment', () => {
  it('reads categories unless use_categories_mapping is true, then categories_mapping', () => {
    expect(vmCategoryAssignment({ categories: { A: 'x' }, categories_mapping: { B: ['y'] } })).toEqual({ categories: { A: 'x' }, categoriesMapping: { A: ['x'] } });
    expect(vmCategoryAssignment({ categories: { A: 'x' }, categories_mapping: { B: ['y', 'z', 'y'], C: [] }, use_categories_mapping: true })).toEqual({
      categories: {},
      categoriesMapping: { B: ['y', 'z'] },
    });
    expect(vmCategoryAssignment({ use_categories_mapping: true, categories_mapping: { B: ['y'] } })).toEqual({ categories: { B: 'y' }, categoriesMapping: { B: ['y'] } });
    expect(vmCategoryAssignment({})).toEqual({ categories: {}, categoriesMapping: {} });
  });
});

describe('CategoryStore', () => {
  it('names the key:value pairs that do not exist', () => {
    const store = new CategoryStore([{ name: 'A', values: ['x'] }], () => []);
    expect(store.missing({ A: ['x', 'y'], B: ['z'] })).toEqual(['A:y', 'B:z']);
  });

  it('refuses seeds a real Prism Central would refuse', () => {
    expect(() => new CategoryStore([{ name: 'a/b', values: [] }], () => [])).toThrow(/does not match/);
    expect(() => new CategoryStore([{ name: 'A', values: ['x', 'x'] }], () => [])).toThrow(/seeded twice/);
    expect(() => new CategoryStore([{ name: 'A', values: [] }, { name: 'A', values: [] }], () => [])).toThrow(/seeded twice/);
  });
});
