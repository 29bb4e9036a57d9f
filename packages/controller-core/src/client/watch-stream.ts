import type { Readable } from 'node:stream';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { StatusBody } from './errors.ts';

/**
 * One line of a watch stream. A BOOKMARK carries only the resourceVersion the watch has reached (the object is
 * otherwise empty); an ERROR carries a metav1.Status, e.g. code 410 when the requested resourceVersion was compacted.
 */
export type WatchEvent<T extends KubernetesObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  | { type: 'BOOKMARK'; object: KubernetesObject & { metadata: { resourceVersion: string } } }
  | { type: 'ERROR'; object: StatusBody };

/**
 * Splits a watch response body (newline-delimited JSON) into events. Ends when the server ends the stream, or quietly
 * when `signal` aborts; throws on a broken connection or a line that is not JSON.
 */
export async function* watchEvents<T extends KubernetesObject>(
  body: Readable,
  signal: AbortSignal | undefined,
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  // The decoder keeps a multi-byte character split across chunks intact.
  body.setEncoding('utf8');
  let buffered = '';
  try {
    for await (const chunk of body as AsyncIterable<string>) {
      let searchFrom = buffered.length;
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n', searchFrom)) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        searchFrom = 0;
        if (line !== '') yield JSON.parse(line) as WatchEvent<T>;
      }
    }
  } catch (error) {
    if (signal?.aborted === true) return;
    throw error;
  } finally {
    // Reached on early exit too (the consumer stopped iterating): release the connection.
    if (!body.destroyed) body.destroy();
  }
}
