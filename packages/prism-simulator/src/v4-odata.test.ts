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

  it("tests a collection's items with any(v:v/field ...), only for the item fields named", () => {
    const task = { status: 'RUNNING', entitiesAffected: [{ extId: 'vm-1', rel: 'vmm:ahv:config:vm' }, { extId: 'img-1', rel: 'image' }] };
    const filter = (text: string): boolean => parseODataFilter(text, ['status'], { entitiesAffected: ['extId', 'rel'] })(task);
    expect(filter("entitiesAffected/any(a:a/extId eq 'img-1')")).toBe(true);
    expect(filter("entitiesAffected/any(a:a/extId eq 'vm-1' and a/rel eq 'image')")).toBe(false);
    expect(filter("entitiesAffected/any(e:e/extId eq 'vm-1') and (status eq Prism.Config.TaskStatus'RUNNING' or status eq Prism.Config.TaskStatus'QUEUED')")).toBe(true);
    expect(parseODataFilter("entitiesAffected/any(a:a/extId eq 'x')", [], { entitiesAffected: ['extId'] })({})).toBe(false);
    expect(() => filter("entitiesAffected/any(a:a/name eq 'x')")).toThrow(/'a\/name' is not a filterable field \(filterable: a\/extId, a\/rel\)/);
    expect(() => filter("entitiesAffected/any(a:a/extId eq 'x' and status eq 'RUNNING')")).toThrow(/'status' is not a filterable field/);
    expect(() => filter("entitiesAffected/any(a/extId eq 'x')")).toThrow(/expected 'v:v\/field'/);
  });

  it('refuses unknown fields, operators and broken syntax, saying what is wrong', () => {
    expect(() => parseODataFilter("memory eq '1'", FIELDS)).toThrow(/'memory' is not a filterable field \(filterable: name, extId, powerState\)/);
    expect(() => parseODataFilter("name gt 'a'", FIELDS)).toThrow(ODataError);
    expect(() => parseODataFilter("name eq 'a", FIELDS)).toThrow(/unterminated/);
    expect(() => parseODataFilter("(name eq 'a'", FIELDS)).toThrow(/expected '\)'/);
    expect(() => parseODataFilter("name eq 'a' extra", FIELDS)).toThrow(/unexpected 'extra'/);
  });
});
