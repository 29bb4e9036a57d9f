import { dirname, isAbsolute, join } from 'node:path';
import { isMapping, type KubeconfigEntry } from './kubeconfig-file.ts';

/**
 * Typed reads of one kubeconfig entry's fields. Every error names the entry and its file, and never a field's value
 * (it may be a token, a password or key data). Empty strings count as unset, as in client-go.
 */
export class EntryFields {
  readonly entry: KubeconfigEntry;

  constructor(entry: KubeconfigEntry) {
    this.entry = entry;
  }

  /** `user "alice" in /home/me/.kube/config` */
  get description(): string {
    return `${this.entry.kind} "${this.entry.name}" in ${this.entry.file}`;
  }

  error(problem: string): Error {
    return new Error(`${this.description} ${problem}`);
  }

  has(key: string): boolean {
    const value = this.entry.fields[key];
    return value !== undefined && value !== null && value !== '';
  }

  string(key: string): string | undefined {
    return asString(this, key, this.entry.fields[key]);
  }

  /** A path field, made absolute against the directory of the entry's file. */
  path(key: string): string | undefined {
    const value = this.string(key);
    return value === undefined ? undefined : this.resolve(value);
  }

  resolve(path: string): string {
    return isAbsolute(path) ? path : join(dirname(this.entry.file), path);
  }

  boolean(key: string): boolean {
    const value = this.entry.fields[key];
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') throw this.error(`has ${key} that is not true or false`);
    return value;
  }

  stringList(key: string): string[] {
    return asStringList(this, key, this.entry.fields[key]);
  }

  mapping(key: string): Record<string, unknown> | undefined {
    const value = this.entry.fields[key];
    if (value === undefined || value === null) return undefined;
    if (!isMapping(value)) throw this.error(`has ${key} that is not a mapping`);
    return value;
  }

  list(key: string): unknown[] {
    const value = this.entry.fields[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.error(`has ${key} that is not a list`);
    return value as unknown[];
  }
}

export function asString(fields: EntryFields, key: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw fields.error(`has ${key} that is not a string`);
  return value;
}

export function asStringList(fields: EntryFields, key: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw fields.error(`has ${key} that is not a list of strings`);
  }
  return value;
}
