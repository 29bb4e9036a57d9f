// `npm run soak -- [--duration 60m] [--cluster local|kind] [--seed N] [--out DIR]`, read into one value.
import { randomInt } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface SoakOptions {
  durationMs: number;
  cluster: 'local' | 'kind';
  seed: number;
  outDir: string;
  /** Workload operations per minute (each picks one of the three operators' actions). */
  rate: number;
  /** How long the settle waits for everything to quiet down before the final checks. */
  settleMs: number;
}

export const USAGE = `usage: npm run soak -- [--duration 60m] [--cluster local|kind] [--seed N] [--out DIR] [--rate N] [--settle 3m]
  --duration  how long the workload and the faults run (default 60m; s, m or h)
  --cluster   local: testkit's cluster on this machine (default); kind: a kind cluster of its own (kind/soak-cluster.sh)
  --seed      the fault schedule and workload choices (default: a fresh one, printed and in the report)
  --out       where the report goes (default: soak-out/<start time>)
  --rate      workload operations per minute (default 12)
  --settle    how long to let things settle before the final checks (default 3m)`;

/** "90s", "10m", "1h" (or a bare number of minutes) in milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`${flag} must be a duration such as 90s, 10m or 1h, not ${JSON.stringify(text)}`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h' | undefined ?? 'm'];
  return Math.round(Number(match[1]) * unit);
}

export function parseSoakOptions(argv: readonly string[], now = new Date()): SoakOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string', default: '60m' },
      cluster: { type: 'string', default: 'local' },
      seed: { type: 'string' },
      out: { type: 'string' },
      rate: { type: 'string', default: '12' },
      settle: { type: 'string', default: '3m' },
    },
    strict: true,
  });
  const cluster = values.cluster;
  if (cluster !== 'local' && cluster !== 'kind') throw new Error(`--cluster must be local or kind, not ${JSON.stringify(cluster)}`);
  const seed = values.seed === undefined ? randomInt(1, 2 ** 31) : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed must be a whole number, not ${JSON.stringify(values.seed)}`);
  const rate = Number(values.rate);
  if (!(rate > 0 && rate <= 120)) throw new Error(`--rate must be between 1 and 120 operations per minute, not ${JSON.stringify(values.rate)}`);
  const durationMs = parseDuration(values.duration, '--duration');
  if (durationMs < 60_000) throw new Error('--duration must be at least 1m: the faults need room between them');
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return {
    durationMs, cluster, seed, rate,
    settleMs: parseDuration(values.settle, '--settle'),
    outDir: resolve(values.out ?? `soak-out/${stamp}`),
  };
}
