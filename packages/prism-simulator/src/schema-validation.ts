// A small JSON-schema subset, enough to answer like the real API: Prism Central validates v3 bodies with
// Python's jsonschema, so messages keep that library's wording ("'name' is a required property",
// "'two' is not of type 'integer'") and details are keyed by the path of the object that failed.

import { addDetail, type ErrorDetails } from './errors.ts';

export type Schema = ObjectSchema | ArraySchema | StringSchema | IntegerSchema | NumberSchema | BooleanSchema;

export interface ObjectSchema {
  type: 'object';
  properties?: Readonly<Record<string, Schema>>;
  required?: readonly string[];
  /** `false` rejects unknown keys; a schema validates every value of a map (e.g. categories). */
  additionalProperties?: false | Schema;
}

export interface ArraySchema {
  type: 'array';
  items?: Schema;
}

export interface StringSchema {
  type: 'string';
  enum?: readonly string[];
  maxLength?: number;
  minLength?: number;
  pattern?: RegExp;
}

export interface IntegerSchema {
  type: 'integer';
  minimum?: number;
  maximum?: number;
}

export interface NumberSchema {
  type: 'number';
  minimum?: number;
  maximum?: number;
}

export interface BooleanSchema {
  type: 'boolean';
}

/** Validates `value`; an empty result means valid. */
export function validate(schema: Schema, value: unknown): ErrorDetails {
  const details: ErrorDetails = {};
  check(schema, value, [], details);
  return details;
}

function check(schema: Schema, value: unknown, path: readonly string[], details: ErrorDetails): void {
  const fail = (message: string): void => { addDetail(details, path.join('.'), message); };
  switch (schema.type) {
    case 'object': {
      if (!isPlainObject(value)) {
        fail(`${pythonRepr(value)} is not of type 'object'`);
        return;
      }
      for (const name of schema.required ?? []) {
        if (!(name in value)) fail(`'${name}' is a required property`);
      }
      const unexpected: string[] = [];
      for (const [name, child] of Object.entries(value)) {
        const childSchema = schema.properties?.[name];
        if (childSchema) check(childSchema, child, [...path, name], details);
        else if (schema.additionalProperties === false) unexpected.push(name);
        else if (schema.additionalProperties) check(schema.additionalProperties, child, [...path, name], details);
      }
      if (unexpected.length > 0) {
        const names = unexpected.map((name) => `'${name}'`).join(', ');
        fail(`Additional properties are not allowed (${names} ${unexpected.length === 1 ? 'was' : 'were'} unexpected)`);
      }
      return;
    }
    case 'array': {
      if (!Array.isArray(value)) {
        fail(`${pythonRepr(value)} is not of type 'array'`);
        return;
      }
      const items = schema.items;
      if (items) value.forEach((item: unknown, index) => { check(items, item, [...path, String(index)], details); });
      return;
    }
    case 'string': {
      if (typeof value !== 'string') {
        fail(`${pythonRepr(value)} is not of type 'string'`);
        return;
      }
      if (schema.enum && !schema.enum.includes(value)) fail(`${pythonRepr(value)} is not one of [${schema.enum.map((e) => `'${e}'`).join(', ')}]`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength) fail(`${pythonRepr(value)} is too long`);
      if (schema.minLength !== undefined && value.length < schema.minLength) fail(`${pythonRepr(value)} is too short`);
      if (schema.pattern && !schema.pattern.test(value)) fail(`${pythonRepr(value)} does not match '${schema.pattern.source}'`);
      return;
    }
    case 'integer':
    case 'number': {
      const typeOk = typeof value === 'number' && Number.isFinite(value) && (schema.type === 'number' || Number.isInteger(value));
      if (!typeOk) {
        fail(`${pythonRepr(value)} is not of type '${schema.type}'`);
        return;
      }
      if (schema.minimum !== undefined && value < schema.minimum) fail(`${value} is less than the minimum of ${schema.minimum}`);
      if (schema.maximum !== undefined && value > schema.maximum) fail(`${value} is greater than the maximum of ${schema.maximum}`);
      return;
    }
    case 'boolean': {
      if (typeof value !== 'boolean') fail(`${pythonRepr(value)} is not of type 'boolean'`);
      return;
    }
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Values as Python prints them, since the real messages come from Python. */
function pythonRepr(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 60 ? `${value.slice(0, 60)}...` : value}'`;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}
