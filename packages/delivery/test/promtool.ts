// Prometheus's promtool for the delivery tests (built once per machine by `npm run provision`), and the shipped
// PrometheusRule objects in the plain rule-file form promtool reads.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { findProvisionedTool, REPOSITORY_ROOT } from '@k8s-operators/testkit';

/** The path of the pinned promtool (`npm run provision` builds it); fails at once, saying so, when it is missing. */
export function promtoolPath(): Promise<string> {
  return findProvisionedTool('promtool');
}

/**
 * promtool and a scratch directory for the rule files a test file writes: found and made in beforeAll, the directory
 * removed in afterAll. Read the fields inside tests.
 */
export function usePromtool(scratchPrefix: string): { readonly binary: string; readonly work: string } {
  const fixture = { binary: '', work: '' };
  beforeAll(async () => {
    fixture.binary = await promtoolPath();
    fixture.work = await mkdtemp(join(tmpdir(), scratchPrefix));
  });
  afterAll(async () => {
    if (fixture.work !== '') await rm(fixture.work, { recursive: true, force: true });
  });
  return fixture;
}

export interface Outcome { code: number; stdout: string; stderr: string }

/** Runs a command to its end; a non-zero exit is an outcome, not an exception. */
export function run(command: string, args: string[], options: { stderr?: 'pipe' | 'inherit' } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', options.stderr ?? 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => { resolve({ code: code ?? -1, stdout, stderr }); });
  });
}

export interface Rule { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
export interface RuleGroup { name: string; interval?: string; rules: Rule[] }
interface PrometheusRule { apiVersion: string; kind: string; metadata: { name: string }; spec: { groups: RuleGroup[] } }

export interface ShippedRules {
  /** The operator's directory under deploy/. */
  operator: string;
  /** deploy/<operator>/prometheus/<file>, relative to the repository. */
  file: string;
  groups: RuleGroup[];
}

/** Every PrometheusRule under deploy/<operator>/prometheus/ (one entry per object). */
export async function shippedRules(): Promise<ShippedRules[]> {
  const found: ShippedRules[] = [];
  for (const operator of (await readdir(join(REPOSITORY_ROOT, 'deploy'))).sort()) {
    const dir = join('deploy', operator, 'prometheus');
    const files = await readdir(join(REPOSITORY_ROOT, dir)).catch((): string[] => []);
    for (const file of files.filter((f) => f.endsWith('.yaml')).sort()) {
      const text = await readFile(join(REPOSITORY_ROOT, dir, file), 'utf8');
      for (const doc of parseAllDocuments(text).map((d) => d.toJSON() as PrometheusRule | null)) {
        if (doc?.kind === 'PrometheusRule') found.push({ operator, file: join(dir, file), groups: doc.spec.groups });
      }
    }
  }
  return found;
}

/** Writes `groups` as a plain Prometheus rule file (what a PrometheusRule's spec is) and returns its path. */
export async function writeRuleFile(path: string, groups: RuleGroup[]): Promise<string> {
  await writeFile(path, stringify({ groups }, { lineWidth: 0 }));
  return path;
}

/** Prometheus durations as rules use them (`15m`, `1h30m`, `90s`), in seconds. */
export function durationSeconds(text: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 };
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new Error(`not a Prometheus duration: ${text}`);
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * (units[unit ?? ''] ?? Number.NaN), 0);
}
