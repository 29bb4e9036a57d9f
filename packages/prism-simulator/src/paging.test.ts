import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_LENGTH, MAX_PAGE_LENGTH, pageOf, sortByName } from './paging.ts';

const numbers = Array.from({ length: 1200 }, (_, i) => i);

describe('pageOf', () => {
  it('returns the first 20 items when no length is asked for, with the total', () => {
    const page = pageOf(numbers.slice(0, 25), {});
    expect(DEFAULT_PAGE_LENGTH).toBe(20);
    expect(page.items).toEqual(numbers.slice(0, 20));
    expect(page).toMatchObject({ offset: 0, totalMatches: 25 });
  });

  it('pages by offset and length', () => {
    expect(pageOf(numbers.slice(0, 25), { offset: 20, length: 10 }).items).toEqual([20, 21, 22, 23, 24]);
    expect(pageOf(numbers.slice(0, 25), { offset: 30 }).items).toEqual([]);
  });

  it('caps the page length', () => {
    expect(pageOf(numbers, { length: 1000 }).items).toHaveLength(MAX_PAGE_LENGTH);
    expect(pageOf(numbers, { length: 1000 }).totalMatches).toBe(1200);
  });
});

describe('sortByName', () => {
  const vms = [{ name: 'b', n: 1 }, { name: 'a', n: 2 }, { name: 'b', n: 3 }, { name: 'c', n: 4 }];
  const name = (vm: { name: string }): string => vm.name;

  it('keeps creation order unless sorting by name', () => {
    expect(sortByName(vms, name, undefined, 'DESCENDING').map((vm) => vm.n)).toEqual([1, 2, 3, 4]);
    expect(sortByName(vms, name, 'memory_size_mib', 'ASCENDING').map((vm) => vm.n)).toEqual([1, 2, 3, 4]);
  });

  it('sorts by name in either order, keeping duplicates in creation order', () => {
    expect(sortByName(vms, name, 'name', undefined).map((vm) => vm.n)).toEqual([2, 1, 3, 4]);
    expect(sortByName(vms, name, 'vm_name', 'DESCENDING').map((vm) => vm.n)).toEqual([4, 1, 3, 2]);
  });
});
