// Long first runs (the control plane's go builds, the base images, the image builds) go through tools/progress.sh:
// nobody should stare at a silent terminal, and a failure should show why.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';

const run = promisify(execFile);
const withProgress = (command: string): Promise<{ stdout: string; stderr: string }> =>
  run('bash', ['-c', `source ${join(REPOSITORY_ROOT, 'tools/progress.sh')}; log=$(mktemp); with_progress "testkit: go build x" "$log" ${command}`],
    { env: { ...process.env, PROGRESS_INTERVAL_SECONDS: '1' } });

test('a long step says what it does and how long it has taken while it runs, and when it is done', async () => {
  const { stderr } = await withProgress('bash -c "echo compiling; sleep 3.5"');
  const lines = stderr.trim().split('\n');
  expect(lines[0]).toBe('testkit: go build x ...');
  expect(lines.filter((l) => /^testkit: go build x: \d+ s - compiling$/.test(l)).length).toBeGreaterThanOrEqual(2);
  expect(lines.at(-1)).toMatch(/^testkit: go build x: done in [34] s$/);
});

test('a failed step shows its exit code and the end of its output', async () => {
  const failure = await withProgress('bash -c "echo cannot find module; exit 3"').then(() => undefined, (e: unknown) => e as { code: number; stderr: string });
  expect(failure?.code).toBe(3);
  expect(failure?.stderr).toMatch(/testkit: go build x failed after \d+ s \(exit 3\); the end of .*:\ncannot find module\n$/);
});
