import { describe, expect, it } from 'vitest';
import { ODataError, parseODataFilter } from './v4-odata.ts';

const FIELDS = ['name', 'extId', 'powerState'];
const matches = (filter: string, record: Record<string, string>): boolean => parseODataFilter(filter, FIELDS)(record);

describe('parseODataFilter', () => {
  it('matches everything without a filter', () => {
    expect(parseODataFilter(undefined, FIELDS)({})).toBe(true);
    expect(parseODataFilter('  ', FIELDS)({})).toBe(true);
  });

  it('compares with eq and ne, string and enum literals, a doubled quote inside a string', () => {
    expect(matches("name eq 'a b'", { name: 'a b' })).toBe(true);
    expect(matches("name ne 'a'", { name: 'a' })).toBe(false);
    expect(matches("powerState eq Vmm.Ahv.Config.PowerState'ON'", { powerState: 'ON' })).toBe(true);
    expect(matches("name eq 'it''s'", { name: "it's" })).toBe(true);
  });

  it('calls startswith, endswith and contains, case-sensitively', () => {
    expect(matches("startswith(name,'web')", { name: 'web-1' })).toBe(true);
    expect(matches("endswith(name, '-1')", { name: 'web-1' })).toBe(true);
    expect(matches("contains(name,'B')", { name: 'web-1' })).toBe(false);
  });

  it('binds and tighter than or, and honours not and parentheses', () => {
    const record = { name: 'x', extId: '1', powerState: 'OFF' };
    expect(matches("name eq 'y' and extId eq '1' or powerState eq 'OFF'", record)).toBe(true);
    expect(matches("name eq 'y' and (extId eq '1' or powerState eq 'OFF')", record)).toBe(false);
    expect(matches("not name eq 'y'", record)).toBe(true);
  });

  it('refuses unknown fields, operators and broken syntax, saying what is wrong', () => {
    expect(() => parseODataFilter("memory eq '1'", FIELDS)).toThrow(/'memory' is not a filterable field \(filterable: name, extId, powerState\)/);
    expect(() => parseODataFilter("name gt 'a'", FIELDS)).toThrow(ODataError);
    expect(() => parseODataFilter("name eq 'a", FIELDS)).toThrow(/unterminated/);
    expect(() => parseODataFilter("(name eq 'a'", FIELDS)).toThrow(/expected '\)'/);
    expect(() => parseODataFilter("name eq 'a' extra", FIELDS)).toThrow(/unexpected 'extra'/);
  });
});
