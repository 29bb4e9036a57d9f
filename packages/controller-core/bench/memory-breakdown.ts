import { readFileSync } from 'node:fs';

/**
 * Where the controller process's resident memory is, in MiB: `file` is pages of the Node binary and the modules it
 * has run (shared, clean, but counted in RSS and its peak), `anon` everything allocated, of which the V8 heap holds
 * `heapUsed` (live objects and garbage not yet collected) within `heapTotal` (what V8 has reserved for it).
 */
export interface MemoryBreakdown {
  rss: number;
  anon: number;
  file: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

const MIB = 2 ** 20;

export function memoryBreakdown(): MemoryBreakdown {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN);
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  const round = (bytes: number): number => Number((bytes / MIB).toFixed(1));
  return {
    rss: round(rss),
    anon: round(kib('RssAnon') * 1024),
    file: round(kib('RssFile') * 1024),
    heapUsed: round(heapUsed),
    heapTotal: round(heapTotal),
    external: round(external),
  };
}

export function describeMemory(memory: MemoryBreakdown): string {
  return `RSS ${String(memory.rss)} MiB (${String(memory.file)} file, ${String(memory.anon)} anon; heap ${String(memory.heapUsed)} used of ${String(memory.heapTotal)})`;
}
