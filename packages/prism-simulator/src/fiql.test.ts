import { describe, expect, it } from 'vitest';
import { FiqlError, parseNameFilter } from './fiql.ts';

/** A POST /vms/list filter, whose one selector is `vm_name`. */
const parseVmFilter = (filter: string | undefined) => parseNameFilter(filter, 'vm_name');

const names = ['web', 'web-1', 'db', 'Web', 'a,b'];
const matching = (filter: string | undefined): string[] => {
  const predicate = parseVmFilter(filter);
  return names.filter((name) => predicate({ name }));
};

describe('parseVmFilter', () => {
  it('matches everything without a filter', () => {
    expect(matching(undefined)).toEqual(names);
    expect(matching('  ')).toEqual(names);
  });

  it('treats vm_name== as an exact, case-sensitive match (no prefix, substring or regex)', () => {
    expect(matching('vm_name==web')).toEqual(['web']);
    expect(matching('vm_name==we')).toEqual([]);
    expect(matching('vm_name==web.*')).toEqual([]);
  });

  it('supports != , ; (AND) and , (OR) and parentheses', () => {
    expect(matching('vm_name!=web')).toEqual(['web-1', 'db', 'Web', 'a,b']);
    expect(matching('vm_name==web,vm_name==db')).toEqual(['web', 'db']);
    expect(matching('vm_name!=web;vm_name!=db')).toEqual(['web-1', 'Web', 'a,b']);
    expect(matching('(vm_name==web,vm_name==db);vm_name!=db')).toEqual(['web']);
  });

  it('percent-decodes values so names with reserved characters can be matched', () => {
    expect(matching('vm_name==a%2Cb')).toEqual(['a,b']);
  });

  it.each([
    ['name==web', /unsupported filter attribute 'name'/],
    ['vm_name=web', /expected '==' or '!='/],
    ['vm_name==', /missing value/],
    ['vm_name==web)', /unexpected '\)'/],
    ['(vm_name==web', /missing '\)'/],
    ['==web', /expected a selector/],
    ['vm_name==%zz', /malformed percent-encoding/],
  ])('rejects %s', (filter, message) => {
    expect(() => parseVmFilter(filter)).toThrow(FiqlError);
    expect(() => parseVmFilter(filter)).toThrow(message);
  });
});

describe('parseNameFilter', () => {
  it('takes the selector of its list call and refuses the others', () => {
    const predicate = parseNameFilter('name==vlan10-ipam', 'name');
    expect(predicate({ name: 'vlan10-ipam' })).toBe(true);
    expect(predicate({ name: 'vlan10' })).toBe(false);
    expect(() => parseNameFilter('vm_name==web', 'name')).toThrow("unsupported filter attribute 'vm_name'; the simulator supports name here");
  });
});
