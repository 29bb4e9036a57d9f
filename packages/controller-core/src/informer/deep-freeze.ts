/**
 * Freezes a JSON value and everything in it, so a cached object shared by every reader cannot be changed by one of
 * them: in strict-mode code (all ES modules) an assignment throws a TypeError instead of silently corrupting the cache.
 * The static type stays mutable on purpose: a deep-readonly type would not be accepted where client-node's models are
 * (readonly arrays are not assignable to mutable ones). To change an object, copy it (`structuredClone`).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
