// `npm run provision`: builds every per-machine tool that is missing (provisioned-tools.ts), before any test runs.
// Builds of different scripts run side by side (a Go build is single-threaded in its module downloads and links,
// so two of them keep two cores busier than one), the longest first; each script prints its own progress, and a
// summary line every 15 s says what is built, building and waiting.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from './e2e.ts';
import { lookUpTool, PROVISIONED_TOOLS, type ProvisionedToolSpec } from './provisioned-tools.ts';

export interface ProvisionOptions {
  /** The tools to provide, by name (default: all of `table`). */
  tools?: readonly string[];
  /** The table of tools (default: PROVISIONED_TOOLS; testkit's own tests pass a small one). */
  table?: Readonly<Record<string, ProvisionedToolSpec>>;
  /** Where the table's script paths start (default: the repository). */
  root?: string;
  env?: NodeJS.ProcessEnv;
  /** How many scripts build at once (default: PROVISION_JOBS, else the machine's cores, at least 2). */
  jobs?: number;
  /** Receives every line: the scripts' own progress and the summary (default: this process's stderr). */
  progress?: (line: string) => void;
  /** How often the summary line is printed (default 15 s). */
  summaryIntervalMs?: number;
}

export interface ProvisionResult {
  /** Tool name -> where it is, for every tool asked for that is there now. */
  found: Record<string, string>;
  /** What failed to build, with the end of its script's output. */
  failures: { script: string; tools: string[]; code: number; tail: string[] }[];
  /** Tools that were missing when provisioning started. */
  built: string[];
  seconds: number;
}

interface Build { script: string; args: string[]; tools: string[]; state: 'waiting' | 'building' | 'done' | 'failed'; startedAt?: number; endedAt?: number }

/** Runs `script args` to its end, passing each stderr line on as it comes; resolves with the exit code and the last 40 lines. */
function runScript(path: string, args: string[], env: NodeJS.ProcessEnv, progress: (line: string) => void): Promise<{ code: number; tail: string[] }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [path, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const tail: string[] = [];
    let pending = '';
    const line = (text: string): void => {
      progress(text);
      tail.push(text);
      if (tail.length > 40) tail.shift();
    };
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(line);
    });
    child.on('error', (error) => { line(`${path}: ${error.message}`); resolve({ code: 127, tail }); });
    child.on('close', (code) => {
      if (pending) line(pending);
      resolve({ code: code ?? 1, tail });
    });
  });
}

const seconds = (ms: number): string => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
};

export async function provision(options: ProvisionOptions = {}): Promise<ProvisionResult> {
  const table: Readonly<Record<string, ProvisionedToolSpec>> = options.table ?? PROVISIONED_TOOLS;
  const root = options.root ?? REPOSITORY_ROOT;
  const env = options.env ?? process.env;
  const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const names = options.tools ?? Object.keys(table);
  const unknown = names.filter((name) => !(name in table));
  if (unknown.length > 0) throw new Error(`provision: no tool named ${unknown.join(', ')}; the tools are: ${Object.keys(table).join(', ')}`);
  const jobs = Math.max(1, options.jobs ?? (Number(env.PROVISION_JOBS) || Math.max(2, availableParallelism())));
  const specOf = (name: string): ProvisionedToolSpec => {
    const spec = table[name];
    if (spec === undefined) throw new Error(`provision: no tool named ${name}`);
    return spec;
  };
  const started = Date.now();

  const lookUp = async (): Promise<{ found: Record<string, string>; missing: string[] }> => {
    const found: Record<string, string> = {};
    const missing: string[] = [];
    for (const name of names) {
      const where = await lookUpTool(specOf(name), root, env);
      if (where.missing === undefined) found[name] = where.path;
      else missing.push(name);
    }
    return { found, missing };
  };

  const before = await lookUp();
  // One build per script, asking for all of its missing tools at once, in the table's order (the longest first).
  const builds: Build[] = [];
  for (const name of before.missing) {
    const spec = specOf(name);
    const same = builds.find((b) => b.script === spec.script);
    if (same) {
      same.args.push(...spec.buildArgs);
      same.tools.push(name);
    } else {
      builds.push({ script: spec.script, args: [...spec.buildArgs], tools: [name], state: 'waiting' });
    }
  }
  if (builds.length === 0) return { found: before.found, failures: [], built: [], seconds: (Date.now() - started) / 1000 };

  progress(`provision: building ${before.missing.join(', ')} once for this machine, ${Math.min(jobs, builds.length)} at a time (the first time takes long; each step reports every 15 s)`);
  const summary = (): string => {
    const by = (state: Build['state']): string => builds.filter((b) => b.state === state)
      .map((b) => `${b.tools.join('+')}${b.startedAt === undefined ? '' : ` ${seconds((b.endedAt ?? Date.now()) - b.startedAt)}`}`).join(', ') || '-';
    return `provision: ${seconds(Date.now() - started)}: building ${by('building')}; done ${by('done')}; waiting ${by('waiting')}${builds.some((b) => b.state === 'failed') ? `; FAILED ${by('failed')}` : ''}`;
  };
  const timer = setInterval(() => { progress(summary()); }, options.summaryIntervalMs ?? 15_000);
  const failures: ProvisionResult['failures'] = [];
  const queue = [...builds];
  const lane = async (): Promise<void> => {
    for (let build = queue.shift(); build; build = queue.shift()) {
      build.state = 'building';
      build.startedAt = Date.now();
      const { code, tail } = await runScript(join(root, build.script), build.args, env, progress);
      build.endedAt = Date.now();
      build.state = code === 0 ? 'done' : 'failed';
      if (code !== 0) failures.push({ script: build.script, tools: build.tools, code, tail });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(jobs, builds.length) }, lane));
  } finally {
    clearInterval(timer);
  }
  progress(summary());
  const after = await lookUp();
  for (const name of after.missing) {
    if (!failures.some((f) => f.tools.includes(name))) {
      const spec = specOf(name);
      failures.push({ script: spec.script, tools: [name], code: 0, tail: [`${spec.script} ${spec.buildArgs.join(' ')} ended without error, yet ${name} is still missing`] });
    }
  }
  return { found: after.found, failures, built: before.missing.filter((name) => name in after.found), seconds: (Date.now() - started) / 1000 };
}
