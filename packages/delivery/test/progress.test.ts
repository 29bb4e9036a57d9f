// Long first runs (the control plane's go builds, the base images, the image builds) go through tools/progress.sh:
// nobody should stare at a silent terminal, and a failure should show why.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';

const run = promisify(execFile);
const script = (command: string): string => `source ${join(REPOSITORY_ROOT, 'tools/progress.sh')}; log=$(mktemp); with_progress "testkit: go build x" "$log" ${command}`;
const env = { ...process.env, PROGRESS_INTERVAL_SECONDS: '1' };

test('a long step says what it does and how long it has taken while it runs, and when it is done', async () => {
  // The step runs until the test has seen two progress lines, however slow the machine is.
  const dir = await mkdtemp(join(tmpdir(), 'progress-'));
  const finish = join(dir, 'finish');
  try {
    const child = spawn('bash', ['-c', script(`bash -c 'echo compiling; until [ -e ${finish} ]; do sleep 0.1; done'`)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const progressLines = (): string[] => stderr.split('\n').filter((l) => /^testkit: go build x: \d+ s - compiling$/.test(l));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (progressLines().length >= 2) void writeFile(finish, '');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toBe('testkit: go build x ...');
    expect(progressLines().length).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)).toMatch(/^testkit: go build x: done in \d+ s$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a failed step shows its exit code and the end of its output', async () => {
  const failure = await run('bash', ['-c', script('bash -c "echo cannot find module; exit 3"')], { env }).then(() => undefined, (e: unknown) => e as { code: number; stderr: string });
  expect(failure?.code).toBe(3);
  expect(failure?.stderr).toMatch(/testkit: go build x failed after \d+ s \(exit 3\); the end of .*:\ncannot find module\n$/);
});
