// hostPidOfContainer against a real container of this machine's engine, with a child process beside its main one: the
// main process (the one the engine reports) must be told from its child, both in the container's cgroup.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { IMAGE_REGISTRY, IMAGE_TAG } from '@k8s-operators/testkit';
import { hostPidOfContainer } from './container-process.ts';

const run = promisify(execFile);
const started: string[] = [];
afterAll(async () => {
  for (const id of started) await run('docker', ['rm', '-f', id]).catch(() => undefined);
});

test('the main process of a container is found among its processes, and none for a container that has stopped', async () => {
  // The page server image: distroless Node, as the operators' images are.
  const script = "require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'inherit' }); setTimeout(() => {}, 120000)";
  const id = (await run('docker', ['run', '-d', '--rm', '--network', 'none', '--entrypoint', '/nodejs/bin/node', `${IMAGE_REGISTRY}/maintpage-page-server:${IMAGE_TAG}`, '-e', script])).stdout.trim();
  started.push(id);
  const mainPid = Number((await run('docker', ['inspect', '--format', '{{.State.Pid}}', id])).stdout.trim());
  expect(mainPid).toBeGreaterThan(0);
  // The child is in the container's cgroup too (its spawn is not awaited; a few tries at most).
  let children: string[] = [];
  for (let attempt = 0; attempt < 50 && children.length === 0; attempt++) {
    children = (await run('pgrep', ['-P', String(mainPid)]).catch(() => ({ stdout: '' }))).stdout.split('\n').filter(Boolean);
    if (children.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(children).toHaveLength(1);
  expect(await hostPidOfContainer(id)).toBe(mainPid);
  await run('docker', ['rm', '-f', id]);
  expect(await hostPidOfContainer(id)).toBeUndefined();
});
