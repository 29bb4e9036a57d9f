// Every metric a dashboard panel or an alert rule under deploy/ refers to is one the code exports: a renamed metric
// must not leave a silent panel or an alert that can never fire.
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import { expect, test } from 'vitest';
import { createMetrics } from '@k8s-operators/controller-core';
import { registerMaintPageMetrics } from '@k8s-operators/maintpage-operator';
import { registerAhvVmMetrics } from '@k8s-operators/nutanix-ahvvm-operator';
import { createBackupStoreMetrics, registerPostgreSQLMetrics } from '@k8s-operators/postgresql-operator';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';

const OUR_PREFIXES = /^(controller_runtime|workqueue|rest_client|leader_election|informer|maintpage|postgresql|prism|ahvvm)_/;

async function exportedMetricNames(): Promise<Set<string>> {
  const registry = new Registry();
  createMetrics(registry);
  registerMaintPageMetrics(registry);
  registerPostgreSQLMetrics(registry);
  registerAhvVmMetrics(registry);
  const names = new Set<string>();
  // The backup store service's, a process of its own with its own registry.
  const backupStore = createBackupStoreMetrics(tmpdir()).registry;
  for (const metric of [...(await registry.getMetricsAsJSON()), ...(await backupStore.getMetricsAsJSON())]) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  return names;
}

interface PrometheusRule { kind: string; spec?: { groups: { rules: { alert?: string; expr: string }[] }[] } }
interface Dashboard { panels: { title: string; targets?: { expr: string }[] }[] }

async function referencedMetrics(): Promise<Map<string, string>> {
  const references = new Map<string, string>();
  const note = (expr: string, where: string): void => {
    for (const [name] of expr.matchAll(/[a-z_][a-z0-9_]*/g)) if (OUR_PREFIXES.test(name)) references.set(name, where);
  };
  for (const operator of await readdir(join(REPOSITORY_ROOT, 'deploy'))) {
    const dir = join(REPOSITORY_ROOT, 'deploy', operator, 'prometheus');
    for (const file of (await readdir(dir).catch((): string[] => [])).filter((f) => f.endsWith('.yaml'))) {
      for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8')).map((d) => d.toJSON() as PrometheusRule)) {
        if (doc.kind !== 'PrometheusRule') continue;
        for (const group of doc.spec?.groups ?? []) for (const rule of group.rules) note(rule.expr, `${operator}/prometheus/${file} ${rule.alert ?? ''}`);
      }
    }
  }
  const dashboards = join(REPOSITORY_ROOT, 'deploy/grafana');
  for (const file of (await readdir(dashboards)).filter((f) => f.endsWith('.json'))) {
    const dashboard = JSON.parse(await readFile(join(dashboards, file), 'utf8')) as Dashboard;
    for (const panel of dashboard.panels) for (const target of panel.targets ?? []) note(target.expr, `grafana/${file} "${panel.title}"`);
  }
  return references;
}

test('dashboards and alert rules refer only to metrics the operators export', async () => {
  const exported = await exportedMetricNames();
  const references = await referencedMetrics();
  // The check has something to check: the shared controller metrics and every operator's own.
  for (const prefix of ['controller_runtime_', 'workqueue_', 'informer_', 'maintpage_', 'postgresql_', 'prism_', 'ahvvm_']) {
    expect([...references.keys()].some((name) => name.startsWith(prefix)), prefix).toBe(true);
  }
  const missing = [...references].filter(([name]) => !exported.has(name)).map(([name, where]) => `${name} (${where})`);
  expect(missing).toEqual([]);
});
