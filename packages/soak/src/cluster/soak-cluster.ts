// The cluster a soak runs on, and the few things the fault injector and the samplers must do below the API: restart
// the control plane's parts, SIGKILL a Pod's containers, and find a container's process to read its memory and files.
import type { KubeApi, KubectlResult } from '@k8s-operators/testkit';
import type { OperatorName } from '../timeline.ts';

export interface SoakCluster {
  kind: 'local' | 'kind';
  kubeconfig: string;
  api: KubeApi;
  kubectl(args: readonly string[], options?: { input?: string }): Promise<KubectlResult>;
  /** kubectl that must succeed; throws with its output otherwise. */
  kubectlOk(args: readonly string[], options?: { input?: string }): Promise<string>;
  /** The address of this machine that the cluster's Pods reach: what the run starts for them (Prism, S3) listens there. */
  servicesHost: string;
  /** What `kubectl apply -k` installs for an operator: deploy/<operator>, or an overlay pointing at the images loaded. */
  installDir(operator: OperatorName): string;
  restartApiServer(): Promise<void>;
  restartEtcd(): Promise<void>;
  /** SIGKILLs the container a Pod's status names (`docker://…`, `testkit://<pid>`): what an OOM kill does. */
  killContainer(containerID: string): Promise<void>;
  /** The host PID of a container's main process, to read /proc; undefined when it is gone. */
  containerPid(containerID: string): Promise<number | undefined>;
  close(): Promise<void>;
}

/** kubectlOk from kubectl: the same call, which throws with kubectl's output when kubectl fails. */
export function succeeding(kubectl: SoakCluster['kubectl']): SoakCluster['kubectlOk'] {
  return async (args, options) => {
    const result = await kubectl(args, options);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${String(result.code)}):\n${result.stderr}${result.stdout}`);
    return result.stdout;
  };
}
