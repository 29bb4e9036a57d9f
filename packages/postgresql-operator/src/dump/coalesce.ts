/**
 * Joins small chunks of a stream into chunks of at least `bytes` (the last one may be smaller), holding no more than
 * that plus one chunk. Without stdbuf (pg-dump.ts) pg_dump writes its output 4 KiB at a time (stdio's buffer size for
 * a pipe) and Node hands on each write as one chunk, while everything downstream of pg_dump costs per chunk: a hash
 * update, a file write, a write into pg_restore's pipe.
 */
export async function* coalesce(
  source: AsyncIterable<Uint8Array>,
  bytes: number,
): AsyncGenerator<Uint8Array, void, undefined> {
  let parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of source) {
    parts.push(chunk);
    size += chunk.byteLength;
    if (size >= bytes) {
      yield parts.length === 1 ? chunk : Buffer.concat(parts, size);
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(parts, size);
}
