/**
 * metav1.Time's wire format: RFC 3339 in UTC with whole seconds (`2026-01-02T03:04:05Z`), as Kubernetes writes every
 * timestamp. Fractions are dropped, not rounded, as Go's `metav1.Time` marshalling truncates them.
 */
export function metav1Time(time: Date): string {
  return time.toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * A timestamp read from an object, or undefined when it is absent or not a time. client-node types metav1.Time fields
 * as Date, but the wire, and so the cache, holds strings: this takes either.
 */
export function parseMetav1Time(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}
