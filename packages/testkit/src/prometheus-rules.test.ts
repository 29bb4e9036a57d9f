import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { parse } from 'yaml';
import { shippedRuleFiles } from './prometheus-rules.ts';

test('the shipped PrometheusRule of an operator becomes a plain rule file with its groups, unchanged', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'prometheus-rules-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const files = await shippedRuleFiles(['postgresql-operator'], dir);
  expect(files).toEqual([join(dir, 'postgresql-operator-0.rules.yaml')]);
  const file = parse(await readFile(files[0] ?? '', 'utf8')) as { groups: { name: string; rules: { alert?: string; expr: string; for?: string }[] }[] };
  const notRestorable = file.groups.flatMap((group) => group.rules).find((rule) => rule.alert === 'PostgreSQLBackupNotRestorable');
  expect(notRestorable).toMatchObject({ expr: 'postgresql_restore_check_last_failure_timestamp_seconds > 0' });
  // What Prometheus reads: a rule file is `groups:` only, not the PrometheusRule object around it.
  expect(Object.keys(file)).toEqual(['groups']);
});
