// The shipped alert rules, checked by Prometheus's own promtool (built by `npm run provision`): every PrometheusRule under
// deploy/<operator>/prometheus is a valid rule file, and its unit tests (deploy/<operator>/prometheus/tests/*.yaml,
// run by `promtool test rules`) pass. Every alert has such tests: one in which it fires, no earlier than its `for:`
// allows and with its exact labels and annotations, and one in which it stays silent. A new alert without them fails.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, normalize } from 'node:path';
import { parse, stringify } from 'yaml';
import { describe, expect, test } from 'vitest';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';
import { durationSeconds, run, shippedRules, usePromtool, writeRuleFile, type Rule, type ShippedRules } from './promtool.ts';

interface ExpectedAlert { exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }
interface AlertTest { eval_time: string; alertname: string; exp_alerts?: ExpectedAlert[] }
interface TestGroup { name?: string; interval?: string; input_series?: unknown[]; alert_rule_test?: AlertTest[] }
interface UnitTestFile { rule_files: string[]; evaluation_interval?: string; tests: TestGroup[] }

interface UnitTests { file: string; content: UnitTestFile }

const rules = await shippedRules();

/** deploy/<operator>/prometheus/tests/*.yaml of the operator that ships `shipped`. */
async function unitTestsOf(shipped: ShippedRules): Promise<UnitTests[]> {
  const dir = join(dirname(shipped.file), 'tests');
  const files = (await readdir(join(REPOSITORY_ROOT, dir)).catch((): string[] => [])).filter((f) => f.endsWith('.yaml')).sort();
  const tests: UnitTests[] = [];
  for (const file of files) {
    const content = parse(await readFile(join(REPOSITORY_ROOT, dir, file), 'utf8')) as UnitTestFile;
    tests.push({ file: join(dir, file), content });
  }
  return tests;
}

const promtool = usePromtool('delivery-prometheus-rules-');

test('every operator ships a PrometheusRule', () => {
  expect(rules.map((r) => r.operator)).toEqual(['maintpage-operator', 'nutanix-ahvvm-operator', 'postgresql-operator']);
});

describe.each(rules.map((r) => [r.file, r] as const))('%s', (_file, shipped) => {
  const ruleCount = shipped.groups.reduce((n, group) => n + group.rules.length, 0);
  const alerts = shipped.groups.flatMap((group) => group.rules).filter((rule): rule is Rule & { alert: string } => rule.alert !== undefined);

  test(`promtool check rules accepts its spec, ${String(ruleCount)} rules, with no lint finding`, async () => {
    expect(ruleCount).toBeGreaterThan(0);
    const plain = await writeRuleFile(join(promtool.work, `${shipped.operator}-${basename(shipped.file)}`), shipped.groups);
    const outcome = await run(promtool.binary, ['check', 'rules', '--lint=all', '--lint-fatal', plain]);
    const output = outcome.stdout + outcome.stderr;
    expect(outcome.code, output).toBe(0);
    expect(output).toContain(`SUCCESS: ${String(ruleCount)} rules found`);
  });

  test('its unit tests pass under promtool test rules', async () => {
    const unitTests = await unitTestsOf(shipped);
    expect(unitTests.length, `no unit tests under ${join(dirname(shipped.file), 'tests')}`).toBeGreaterThan(0);
    const plain = await writeRuleFile(join(promtool.work, `${shipped.operator}-under-test-${basename(shipped.file)}`), shipped.groups);
    for (const { file, content } of unitTests) {
      // The test files name the PrometheusRule (../rules.yaml); promtool gets its spec as a plain rule file instead.
      const ruleFiles = content.rule_files.map((ruleFile) => {
        expect(normalize(join(dirname(file), ruleFile)), `${file}: rule_files must name ${shipped.file}`).toBe(shipped.file);
        return plain;
      });
      const copy = join(promtool.work, `${shipped.operator}-${basename(file)}`);
      await writeFile(copy, stringify({ ...content, rule_files: ruleFiles }, { lineWidth: 0 }));
      const outcome = await run(promtool.binary, ['test', 'rules', copy]);
      expect(outcome.code, `${file}:\n${outcome.stdout}${outcome.stderr}`).toBe(0);
      expect(outcome.stdout).toContain('SUCCESS');
    }
  });

  test.each(alerts.map((a) => [a.alert, a] as const))('alert %s has unit tests that see it fire and stay silent', async (name, alert) => {
    const forSeconds = alert.for === undefined ? 0 : durationSeconds(alert.for);
    const groups = (await unitTestsOf(shipped)).flatMap(({ file, content }) => content.tests.map((group) => ({ file, group })));
    const cases = groups.map(({ file, group }) => ({
      where: `${file}: "${group.name ?? ''}"`,
      evals: (group.alert_rule_test ?? []).filter((t) => t.alertname === name).map((t) => ({ at: durationSeconds(t.eval_time), expected: t.exp_alerts ?? [] })),
    }));
    const firing = cases.flatMap(({ where, evals }) => evals.filter((e) => e.expected.length > 0).map((e) => ({ where, ...e })));
    const silent = cases.flatMap(({ evals }) => evals.filter((e) => e.expected.length === 0));
    expect(firing.length, `no unit test in which ${name} fires`).toBeGreaterThan(0);
    expect(silent.length, `no unit test in which ${name} stays silent`).toBeGreaterThan(0);
    if (forSeconds > 0) {
      // Pending is not firing: some test sees the alert silent and then, later in the same series, firing.
      const pendingThenFiring = cases.some(({ evals }) => evals.some((s) => s.expected.length === 0 && evals.some((f) => f.expected.length > 0 && f.at > s.at)));
      expect(pendingThenFiring, `no unit test sees ${name} silent before it fires (for: ${alert.for ?? ''})`).toBe(true);
      for (const f of firing) expect(f.at, `${f.where}: ${name} cannot fire before its for: ${alert.for ?? ''}`).toBeGreaterThanOrEqual(forSeconds);
    }
    for (const { where, expected } of firing) {
      for (const e of expected) {
        expect(e.exp_labels ?? {}, `${where}: ${name}'s own labels`).toMatchObject(alert.labels ?? {});
        expect(Object.keys(e.exp_annotations ?? {}).sort(), `${where}: ${name}'s annotations, each with its exact text`).toEqual(Object.keys(alert.annotations ?? {}).sort());
      }
    }
  });

  test('its unit tests name only its alerts', async () => {
    const names = new Set(alerts.map((a) => a.alert));
    for (const { file, content } of await unitTestsOf(shipped)) {
      for (const group of content.tests) {
        for (const t of group.alert_rule_test ?? []) expect(names.has(t.alertname), `${file}: "${group.name ?? ''}" tests an unknown alert ${t.alertname}`).toBe(true);
      }
    }
  });
});
