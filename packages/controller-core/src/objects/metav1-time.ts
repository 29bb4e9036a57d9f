/**
 * metav1.Time's wire format: RFC 3339 in UTC with whole seconds (`2026-01-02T03:04:05Z`), as Kubernetes writes every
 * timestamp. Fractions are dropped, not rounded, as Go's `metav1.Time` marshalling truncates them.
 */
export function metav1Time(time: Date): string {
  return time.toISOString().replace(/\.\d+Z$/, 'Z');
}
