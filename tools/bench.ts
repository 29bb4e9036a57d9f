// `npm run bench -- <name> [flags]`: runs one benchmark, passing the flags on. Benchmarks print figures (the last line
// of output is one JSON object); they never pass or fail on a wall-clock number.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { provision, type ProvisionedTool } from '@k8s-operators/testkit';

const repo = join(import.meta.dirname, '..');

/** Benchmark name → its file and the per-machine tools it runs (provided before it starts). A new benchmark is one line here. */
const BENCHMARKS: Readonly<Record<string, { file: string; summary: string; needs?: ProvisionedTool[] }>> = {
  core: {
    file: 'packages/controller-core/bench/core.bench.ts',
    needs: ['control-plane'],
    summary: 'one controller over N custom resources with owned ConfigMaps: convergence, writes, idle requests, CPU, RSS',
  },
  postgresql: {
    file: 'packages/postgresql-operator/bench/postgresql.bench.ts',
    needs: ['control-plane', 'seaweedfs'],
    summary: 'backup and restore of a ~1 GB database through the operator vs plain pg_dump -Fc / pg_restore (--scale N, --rounds N, --store volume|s3, --job, --encrypt; medians)',
  },
  'postgresql-encryption': {
    file: 'packages/postgresql-operator/bench/encryption.bench.ts',
    summary: 'age encryption of a backup stream (src/encryption/): MiB/s and CPU s/GiB of encrypt and decrypt against a plain copy of the same bytes, and the memory held (--mib N, --rounds N; medians)',
  },
  'postgresql-secrets': {
    file: 'packages/postgresql-operator/bench/secrets-memory.bench.ts',
    needs: ['control-plane'],
    summary: "the operator's resident memory with N unrelated Secrets in the cluster against none (--secrets N, --secret-bytes B)",
  },
  maintpage: {
    file: 'packages/maintpage-operator/bench/maintpage.bench.ts',
    needs: ['control-plane'],
    summary: 'toggle -> EndpointSlice switched to Ready pods of the other set, p50/p99 over 20 toggles',
  },
  images: {
    file: 'tools/images/images.bench.ts',
    summary: 'per image: build time cached (and with --cold, from no cache), size, seconds from docker run to /readyz, RSS after start',
  },
  nutanix: { file: 'packages/nutanix-ahvvm-operator/bench/nutanix.bench.ts', needs: ['control-plane'], summary: 'N AhvVms against the Prism simulator (100 ms requests, 2 s tasks): time to all Ready and all gone, Prism requests per VM, peak concurrency, duplicates' },
};

function usage(): string {
  const width = Math.max(...Object.keys(BENCHMARKS).map((name) => name.length));
  const listing = Object.entries(BENCHMARKS).map(([name, { file, summary }]) => `  ${name.padEnd(width)}  ${summary}\n  ${' '.repeat(width)}  (${file})`);
  return ['usage: npm run bench -- <name> [flags]', '', 'benchmarks:', ...listing].join('\n');
}

const [name, ...flags] = process.argv.slice(2);
const benchmark = name === undefined ? undefined : BENCHMARKS[name];
if (benchmark === undefined) {
  if (name !== undefined) console.error(`unknown benchmark: ${name}\n`);
  console.error(usage());
  process.exit(2);
}

// Built once per machine, here in the foreground with its progress, so a first run never times out inside a benchmark.
const provided = await provision({ tools: benchmark.needs ?? [] });
if (provided.failures.length > 0) {
  for (const failure of provided.failures) console.error(failure.tail.join('\n'));
  console.error(`the benchmark needs ${provided.failures.flatMap((f) => f.tools).join(', ')}, which could not be built (above)`);
  process.exit(1);
}

// A child Node with this one's flags (--conditions=source, and e.g. --cpu-prof when profiling), so the benchmark's
// process measures only itself.
const child = spawn(process.execPath, [...process.execArgv, join(repo, benchmark.file), ...flags], { stdio: 'inherit' });
// Ctrl-C reaches the whole process group; the benchmark cleans up and exits, and this process follows it.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal === null ? 1 : 128));
});
