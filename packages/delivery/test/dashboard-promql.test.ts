// Every PromQL expression of the Grafana dashboards in deploy/grafana parses with Prometheus's own parser. promtool has
// no bare "parse" command, but `promtool check rules` parses every rule's expression: each panel target becomes a
// recording rule, in a group named after its panel, once Grafana's variables are replaced by values of their kind.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';
import { run, usePromtool, writeRuleFile, type RuleGroup } from './promtool.ts';

interface Target { refId?: string; expr?: string; hide?: boolean }
interface Panel { id?: number; title?: string; type?: string; targets?: Target[]; panels?: Panel[] }
interface Variable { name: string; type: string; query?: string | { query?: string }; allValue?: string; options?: { value?: string }[] }
interface Dashboard { title?: string; panels?: Panel[]; templating?: { list?: Variable[] } }

/** Grafana's built-in variables, as a Prometheus data source would fill them in. */
const BUILT_IN: Record<string, string> = {
  __rate_interval: '1m',
  __interval: '30s',
  __interval_ms: '30000',
  __range: '1h',
  __range_s: '3600',
  __range_ms: '3600000',
  __dashboard: 'dashboard',
};

/** A value of the dashboard variable's kind: the "All" regex for query variables, the first choice of the others. */
function sampleValue(variable: Variable): string {
  const query = typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? '');
  switch (variable.type) {
    case 'interval':
    case 'custom':
      return variable.options?.[0]?.value ?? query.split(',')[0]?.trim() ?? '';
    case 'constant':
    case 'textbox':
      return query === '' ? 'value' : query;
    default:
      return variable.allValue ?? '.*';
  }
}

/** Replaces $name, ${name}, ${name:format} and [[name]]; throws on a variable the dashboard does not define. */
function substitute(expr: string, values: Record<string, string>): string {
  return expr.replace(/\$\{(\w+)(?::[^}]*)?\}|\[\[(\w+)(?::[^\]]*)?\]\]|\$(\w+)/g, (whole, a?: string, b?: string, c?: string) => {
    const name = a ?? b ?? c ?? '';
    // "$1" in label_replace's replacement is PromQL's own, not Grafana's.
    if (/^\d/.test(name)) return whole;
    const value = values[name];
    if (value === undefined) throw new Error(`unknown Grafana variable ${whole} in ${expr}`);
    return value;
  });
}

function allPanels(panels: Panel[] | undefined): Panel[] {
  return (panels ?? []).flatMap((panel) => [panel, ...allPanels(panel.panels)]);
}

const dashboardDir = join(REPOSITORY_ROOT, 'deploy/grafana');
const dashboards = (await readdir(dashboardDir)).filter((f) => f.endsWith('.json')).sort();

const promtool = usePromtool('delivery-dashboard-promql-');

test('there is a dashboard to check', () => {
  expect(dashboards.length).toBeGreaterThan(0);
});

describe.each(dashboards)('deploy/grafana/%s', (file) => {
  test('every panel query and variable query parses as PromQL', async () => {
    const dashboard = JSON.parse(await readFile(join(dashboardDir, file), 'utf8')) as Dashboard;
    const variables = dashboard.templating?.list ?? [];
    const values: Record<string, string> = { ...BUILT_IN, ...Object.fromEntries(variables.map((v) => [v.name, sampleValue(v)])) };
    const groups: RuleGroup[] = [];
    const problems: string[] = [];
    for (const panel of allPanels(dashboard.panels)) {
      const targets = (panel.targets ?? []).filter((t) => t.expr !== undefined && t.expr.trim() !== '');
      if (targets.length === 0) continue;
      const where = `panel ${String(panel.id ?? '?')} "${panel.title ?? ''}"`;
      const rules = targets.flatMap((target, i) => {
        try {
          return [{ record: `dashboard:panel_${String(panel.id ?? 0)}_${target.refId ?? String(i)}`, expr: substitute(target.expr ?? '', values) }];
        } catch (error) {
          problems.push(`${where} target ${target.refId ?? String(i)}: ${(error as Error).message}`);
          return [];
        }
      });
      groups.push({ name: where, rules });
    }
    // A query variable's label_values(<selector>, <label>) holds a selector too.
    for (const variable of variables) {
      const query = typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? '');
      const selector = /^label_values\((.+),\s*\w+\)$/.exec(query.trim())?.[1];
      if (variable.type === 'query' && selector !== undefined) {
        groups.push({ name: `variable ${variable.name}`, rules: [{ record: `dashboard:variable_${variable.name}`, expr: substitute(selector, values) }] });
      }
    }
    expect(problems).toEqual([]);
    const expressions = groups.reduce((n, g) => n + g.rules.length, 0);
    expect(expressions).toBeGreaterThan(0);

    const outcome = await run(promtool.binary, ['check', 'rules', await writeRuleFile(join(promtool.work, `${file}.rules.yaml`), groups)]);
    const output = outcome.stdout + outcome.stderr;
    // promtool names the group (the panel) and the rule of each expression it cannot parse.
    expect(outcome.code, output).toBe(0);
    expect(output).toContain(`SUCCESS: ${String(expressions)} rules found`);
  });
});
