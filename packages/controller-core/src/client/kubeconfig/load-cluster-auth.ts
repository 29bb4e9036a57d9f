import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { ClusterAuth } from './cluster-auth.ts';
import { inClusterAuth, SERVICE_ACCOUNT_DIR } from './in-cluster.ts';
import { kubeconfigClusterAuth } from './kubeconfig-cluster-auth.ts';
import { readKubeconfigFile, type KubeconfigFile } from './kubeconfig-file.ts';
import { mergeKubeconfigs } from './merge-kubeconfigs.ts';
import { selectContext } from './select-context.ts';

export interface LoadOptions {
  /** A kubeconfig file to use, ignoring KUBECONFIG and the in-cluster config (controller-runtime's --kubeconfig). */
  kubeconfig?: string;
  /** The kubeconfig context to use instead of its current-context. Not used in-cluster. */
  context?: string;
  /** The process environment: KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT, HOME, and the base of exec plugins' env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where `.kube/config` is looked for. Default: $HOME, else the user's home directory. */
  homeDir?: string;
  /** Where the ServiceAccount token and CA are mounted. Default /var/run/secrets/kubernetes.io/serviceaccount. */
  serviceAccountDir?: string;
  /** An exec credential plugin still running after this long is killed and the request fails. Default 60 s. */
  execTimeoutMs?: number;
}

const EXEC_TIMEOUT_MS = 60_000;

/**
 * Where to connect and with which credentials, in the order of controller-runtime's GetConfig: the `kubeconfig`
 * option, else the KUBECONFIG list, else the in-cluster ServiceAccount, else ~/.kube/config.
 */
export async function loadClusterAuth(options: LoadOptions = {}): Promise<ClusterAuth> {
  const env = options.env ?? process.env;
  const fromFiles = async (files: readonly KubeconfigFile[]): Promise<ClusterAuth> =>
    kubeconfigClusterAuth(selectContext(mergeKubeconfigs(files), options.context), {
      environment: env,
      execTimeoutMs: options.execTimeoutMs ?? EXEC_TIMEOUT_MS,
    });

  if (options.kubeconfig !== undefined && options.kubeconfig !== '') {
    const path = resolve(options.kubeconfig);
    const file = await readKubeconfigFile(path);
    if (file === undefined) throw new Error(`kubeconfig ${path} does not exist`);
    return fromFiles([file]);
  }

  const list = env.KUBECONFIG;
  if (list !== undefined && list !== '') {
    // Like client-go: empty entries are skipped, a file named twice is read once, missing files are skipped.
    const paths = [...new Set(list.split(delimiter).filter((path) => path !== '').map((path) => resolve(path)))];
    const files = (await Promise.all(paths.map(readKubeconfigFile))).filter((file) => file !== undefined);
    if (files.length === 0) {
      throw new Error(paths.length === 0 ? `KUBECONFIG ("${list}") names no file` : `none of the files in KUBECONFIG exists: ${paths.join(', ')}`);
    }
    return fromFiles(files);
  }

  const inCluster = await inClusterAuth(env, options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
  if ('auth' in inCluster) return inCluster.auth;

  const home = options.homeDir ?? (env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir());
  const homeConfig = join(home, '.kube', 'config');
  const file = await readKubeconfigFile(homeConfig);
  if (file === undefined) {
    throw new Error(
      `no kubeconfig found: KUBECONFIG is not set, ${inCluster.unavailable}, and ${homeConfig} does not exist; ` +
        'set KUBECONFIG or give a kubeconfig path',
    );
  }
  return fromFiles([file]);
}
