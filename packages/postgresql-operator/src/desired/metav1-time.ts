/** A timestamp from an object: client-node types them as Date, the wire (and so the cache) has strings. */
export function timeOf(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}
