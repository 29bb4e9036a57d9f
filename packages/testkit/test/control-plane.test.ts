import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ControlPlane } from '../src/index.ts';

// Every test file that starts a control plane in a directory of its own used to leave etcd's data there (64 MiB of
// preallocated WAL), and a CI run filled this machine's disk with them.
test('stopping a control plane deletes etcd\'s data and keeps the logs and kubeconfigs for diagnosis', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'control-plane-'));
  try {
    const plane = await ControlPlane.start({ dir });
    expect((await plane.adminGet('/readyz')).status).toBe(200);
    expect(existsSync(join(dir, 'etcd'))).toBe(true);
    await plane.stop();
    expect(existsSync(join(dir, 'etcd'))).toBe(false);
    expect(existsSync(join(plane.logDir, 'kube-apiserver.log'))).toBe(true);
    expect(existsSync(plane.adminKubeconfig)).toBe(true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
