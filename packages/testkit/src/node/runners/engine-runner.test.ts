import type { V1Pod } from '@kubernetes/client-node';
import { expect, test } from 'vitest';
import { dockerRunArgs } from './engine-runner.ts';
import type { RunnerContext } from './runner.ts';

const pod: V1Pod = {
  metadata: { name: 'op-1', namespace: 'op-system', uid: 'abcdef12-3456' },
  spec: {
    securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 2000, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{
      name: 'manager', image: 'ghcr.io/k8s-operators/maintpage-operator:0.1.0',
      securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      resources: { limits: { cpu: '500m', memory: '256Mi' } },
    }],
  },
};

function context(overrides: Partial<RunnerContext> = {}): RunnerContext {
  const container = pod.spec?.containers[0] ?? { name: 'none' };
  return {
    pod, container, podIP: '127.0.0.7', env: {}, containerEnv: { POD_IP: '127.0.0.7', PASSWORD: 's3cret', PATH: '/usr/bin' },
    command: [], args: [], containerCommand: [], containerArgs: ['--metrics-bind-address=127.0.0.7:8080', '--backup-dir=/backup'],
    mounts: [{ mountPath: '/backup', hostPath: '/tmp/pvc-1', readOnly: false }, { mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', hostPath: '/tmp/token', readOnly: true }],
    containerDir: '/tmp/c', logFile: '/tmp/c.log', settings: {}, cluster: { server: 'https://127.0.0.1:41234', caFile: '/tmp/ca.crt' }, workspaceRoot: '/repo',
    ...overrides,
  };
}

test('the Pod\'s user, groups, read-only root, capabilities, limits and mounts become docker run flags; args stay as the container sees them', () => {
  const { args, env } = dockerRunArgs(context(), 'k8s_manager_op-1');
  const line = args.join(' ');
  expect(line).toContain('--network host --pull never');
  expect(line).toContain('--user 65532:65532 --group-add 2000 --read-only --security-opt no-new-privileges --cap-drop ALL');
  expect(line).toContain(`--memory ${256 * 2 ** 20} --memory-swap ${256 * 2 ** 20} --cpus 0.5`);
  expect(line).toContain('--mount type=bind,source=/tmp/pvc-1,target=/backup --mount type=bind,source=/tmp/token,target=/var/run/secrets/kubernetes.io/serviceaccount,readonly');
  expect(args.slice(-3)).toEqual(['ghcr.io/k8s-operators/maintpage-operator:0.1.0', '--metrics-bind-address=127.0.0.7:8080', '--backup-dir=/backup']);
  // Secrets travel in the client's environment, never in its arguments; the in-cluster config finds the API server.
  expect(line).not.toContain('s3cret');
  expect(args).toContain('PASSWORD');
  expect(env).toMatchObject({ PASSWORD: 's3cret', KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '41234' });
  // The client's own variables go inline, so a container's PATH cannot redirect the docker client.
  expect(args).toContain('PATH=/usr/bin');
  expect(env).not.toHaveProperty('PATH');
});

test('command replaces the image\'s ENTRYPOINT, args follow it', () => {
  const { args } = dockerRunArgs(context({ containerCommand: ['/nodejs/bin/node', '-e', 'x'], containerArgs: ['a'] }), 'n');
  expect(args.slice(args.indexOf('--entrypoint'))).toEqual(['--entrypoint', '/nodejs/bin/node', 'ghcr.io/k8s-operators/maintpage-operator:0.1.0', '-e', 'x', 'a']);
});
