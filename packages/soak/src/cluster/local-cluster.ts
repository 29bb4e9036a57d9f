// The soak on testkit's local cluster: the control plane's processes are ours to restart, and the Pods' containers
// run in Docker's engine (`docker://<name>`) or as processes of this machine (`testkit://<pid>`).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPOSITORY_ROOT, TestCluster } from '@k8s-operators/testkit';
import { succeeding, type SoakCluster } from './soak-cluster.ts';

const run = promisify(execFile);

function parseContainerId(containerID: string): { scheme: string; id: string } {
  const at = containerID.indexOf('://');
  return { scheme: containerID.slice(0, at), id: containerID.slice(at + 3) };
}

export async function startLocalSoakCluster(): Promise<SoakCluster> {
  const cluster = await TestCluster.start();
  const api = await cluster.admin();
  const kubectl: SoakCluster['kubectl'] = (args, options) => cluster.kubectl(args, options);
  return {
    kind: 'local',
    kubeconfig: cluster.adminKubeconfig,
    api,
    kubectl,
    kubectlOk: succeeding(kubectl),
    // The local node's Pods are processes and containers of this machine's network.
    servicesHost: '127.0.0.1',
    installDir: (operator) => join(REPOSITORY_ROOT, 'deploy', operator),
    restartApiServer: () => cluster.controlPlane.restartApiServer(),
    restartEtcd: () => cluster.controlPlane.restartEtcd(),
    killContainer: async (containerID) => {
      const { scheme, id } = parseContainerId(containerID);
      if (scheme === 'docker') await run('docker', ['kill', '--signal', 'KILL', id], { timeout: 30_000 });
      else if (scheme === 'testkit') process.kill(Number(id), 'SIGKILL');
      else throw new Error(`cannot kill container ${containerID}: unknown runtime ${scheme}`);
    },
    containerPid: async (containerID) => {
      const { scheme, id } = parseContainerId(containerID);
      if (scheme === 'testkit') return Number(id);
      if (scheme !== 'docker') return undefined;
      const pid = await run('docker', ['inspect', '--format', '{{.State.Pid}}', id], { timeout: 10_000 }).then((r) => Number(r.stdout.trim()), () => 0);
      return pid > 0 ? pid : undefined;
    },
    close: () => cluster.stop(),
  };
}
