import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './free-port.ts';
import { ManagedProcess } from './managed-process.ts';
import { findProvisionedTool } from './provisioned-tools.ts';
import { waitFor } from './wait-for.ts';

/** A scrape job as Prometheus' configuration file spells it (scrape_configs[]). */
export type ScrapeConfig = Record<string, unknown>;

export interface ScrapeTarget {
  scrapePool: string;
  health: 'up' | 'down' | 'unknown';
  lastError: string;
  labels: Record<string, string>;
}

/** An alert as Prometheus' /api/v1/alerts reports it. */
export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
}

export interface PrometheusOptions {
  /** Rule files (plain Prometheus rule files: `groups:`) evaluated every second, as `rule_files` lists them. */
  ruleFiles?: readonly string[];
}

export interface RunningPrometheus {
  url: string;
  /** An instant query's vector: each series' labels and value. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** The active targets and how their last scrape went. */
  targets(): Promise<ScrapeTarget[]>;
  /** The alerts of the rule files that are pending or firing now. */
  alerts(): Promise<PrometheusAlert[]>;
  stop(): Promise<void>;
}

/**
 * A real Prometheus (built once per machine by `npm run provision`) on 127.0.0.1, scraping
 * every second with the given jobs. Its data and configuration live in a temporary directory removed on stop.
 */
export async function startPrometheus(scrapeConfigs: ScrapeConfig[], options: PrometheusOptions = {}): Promise<RunningPrometheus> {
  const binary = await findProvisionedTool('prometheus');
  const dir = await mkdtemp(join(tmpdir(), 'prometheus-'));
  const config = join(dir, 'prometheus.yml');
  await writeFile(config, stringify({
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    ...(options.ruleFiles ? { rule_files: options.ruleFiles } : {}),
    scrape_configs: scrapeConfigs,
  }));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process_ = ManagedProcess.start({
    name: 'prometheus', command: binary, logFile: join(dir, 'prometheus.log'), cwd: dir,
    args: [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
  });
  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    const body = await response.json() as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error ?? response.status}`);
    return body.data;
  };
  await waitFor(async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200, { what: 'Prometheus to be ready', timeoutMs: 60_000 });
  return {
    url,
    query: async (expr) => (await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`))
      .result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) })),
    targets: async () => (await api<{ activeTargets: ScrapeTarget[] }>('/api/v1/targets?state=active')).activeTargets,
    alerts: async () => (await api<{ alerts: PrometheusAlert[] }>('/api/v1/alerts')).alerts,
    stop: async () => {
      await process_.stop(10_000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
