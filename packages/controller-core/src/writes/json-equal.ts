/**
 * Whether two values serialise to the same JSON, ignoring the order of object keys: the test that decides whether a
 * write would change anything on the API server. As in `JSON.stringify`, a key whose value is `undefined` counts as
 * absent, and values with a `toJSON` method (a `Date`) are compared by what they serialise to. Array order matters.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const left = jsonValue(a);
  const right = jsonValue(b);
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    // JSON writes an undefined array element as null.
    return left.every((element: unknown, index) => jsonEqual(element ?? null, right[index] ?? null));
  }
  const leftKeys = definedKeys(left);
  const rightKeys = definedKeys(right);
  if (leftKeys.length !== rightKeys.length) return false;
  const rightRecord = right as Record<string, unknown>;
  const leftRecord = left as Record<string, unknown>;
  return leftKeys.every((key) => Object.hasOwn(rightRecord, key) && jsonEqual(leftRecord[key], rightRecord[key]));
}

function jsonValue(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && 'toJSON' in value && typeof value.toJSON === 'function') {
    return (value.toJSON as () => unknown)();
  }
  return value;
}

function definedKeys(value: object): string[] {
  return Object.entries(value)
    .filter(([, field]) => field !== undefined)
    .map(([key]) => key);
}
