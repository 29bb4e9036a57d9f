import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const stateDir = await mkdtemp(join(tmpdir(), 'testkit-cli-'));

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
const cluster = (...args: string[]): ReturnType<typeof run> => run(process.execPath, ['--conditions=source', cli, ...args, '--state-dir', stateDir]);

afterAll(async () => {
  await cluster('down');
  await rm(stateDir, { recursive: true, force: true });
});

test('up prints the admin kubeconfig last; env makes plain kubectl work; down stops every process', async () => {
  const up = await cluster('up');
  expect(up.code).toBe(0);
  const kubeconfig = up.stdout.trim().split('\n').at(-1) ?? '';
  expect(existsSync(kubeconfig)).toBe(true);

  const status = await cluster('status');
  expect(status.code).toBe(0);
  expect(status.stdout).toContain('readyz=ok');
  expect(status.stdout).toMatch(/testkit-node\s+Ready/);

  const env = await cluster('env');
  expect(env.code).toBe(0);
  const exported: Record<string, string> = Object.fromEntries([...env.stdout.matchAll(/^export (\w+)="([^"]*)"/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
  expect(exported.KUBECONFIG).toBe(kubeconfig);
  const kubectlEnv = { ...process.env, KUBECONFIG: exported.KUBECONFIG, PATH: `${exported.PATH ?? ''}${process.env.PATH ?? ''}` };
  const version = await run('kubectl', ['version', '-o', 'json'], kubectlEnv);
  expect(JSON.parse(version.stdout)).toMatchObject({ clientVersion: { gitVersion: 'v1.36.5' }, serverVersion: { gitVersion: 'v1.36.5' } });

  const state = JSON.parse(await readFile(join(stateDir, 'state.json'), 'utf8')) as { pid: number };
  const pid = state.pid;
  const down = await cluster('down');
  expect(down.code).toBe(0);
  expect(down.stdout).toContain('testkit cluster stopped');
  expect(() => process.kill(pid, 0)).toThrow();
  const leftovers = await run('pgrep', ['-f', stateDir]);
  expect(leftovers.stdout).toBe('');
  expect((await cluster('status')).code).toBe(1);
});
