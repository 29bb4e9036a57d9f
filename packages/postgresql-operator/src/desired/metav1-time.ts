/** metav1.Time's wire format: RFC 3339 in UTC with whole seconds, as Kubernetes writes every timestamp. */
export function metav1Time(time: Date): string {
  return time.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** A timestamp from an object: client-node types them as Date, the wire (and so the cache) has strings. */
export function timeOf(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}
