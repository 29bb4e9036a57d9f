// How an e2e spec installs and removes an operator: each of the three ways a user has (README, "Install on a real
// cluster"), chosen by E2E_INSTALL, so that one spec proves all three. kind/e2e.sh sets it with `--install WAY`, after
// writing a release whose images it pushed to the cluster's local registry (E2E_RELEASE_DIR): the manifest and the
// chart then make the cluster pull each image by the digest the push returned.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './run-command.ts';
import { findProvisionedTool } from './provisioned-tools.ts';

export const INSTALL_WAYS = ['kustomize', 'manifest', 'chart'] as const;
/**
 * `kustomize`: `kubectl apply -k deploy/<operator>` (or the overlay kind/e2e.sh made, E2E_KUSTOMIZE_DIR);
 * `manifest`: `kubectl apply --server-side -f <release>/<operator>/install.yaml`;
 * `chart`: `helm upgrade --install <operator> <release>/<operator>/chart` into `<operator>-system`.
 */
export type InstallWay = (typeof INSTALL_WAYS)[number];

export interface OperatorInstaller {
  way: InstallWay;
  /** Installs the operator, or upgrades it in place when it is installed already (an earlier spec on the cluster). */
  install(operator: string): Promise<void>;
  /**
   * Removes it as a user of that way does, without waiting: `kubectl delete -k`/`-f install.yaml` (the CRDs, and with
   * them every object of their kinds, and the operator's namespace), or `helm uninstall` (which keeps the CRDs and the
   * namespace, as the chart documents).
   */
  uninstall(operator: string): Promise<void>;
  /** The objects the install applies, as YAML documents: what a least-privilege check reads the operator's roles from. */
  installedObjects(operator: string): Promise<string>;
}

type KubectlOk = (args: readonly string[], options?: { input?: string }) => Promise<string>;

const operatorNamespace = (operator: string): string => `${operator}-system`;

/** The installer E2E_INSTALL asks for (default `kustomize`); a wrong value or a missing E2E_RELEASE_DIR says what to set. */
export async function operatorInstaller(env: NodeJS.ProcessEnv, kubectlOk: KubectlOk, kubeconfig: string, repositoryRoot: string): Promise<OperatorInstaller> {
  const way = env.E2E_INSTALL ?? 'kustomize';
  if (!(INSTALL_WAYS as readonly string[]).includes(way)) {
    throw new Error(`E2E_INSTALL=${way} is not a way to install: use one of ${INSTALL_WAYS.join(', ')} (kind/e2e.sh --install WAY sets it)`);
  }
  if (way === 'kustomize') {
    const dir = (operator: string): string => env.E2E_KUSTOMIZE_DIR ?? join(repositoryRoot, 'deploy', operator);
    return {
      way,
      install: async (operator) => { await kubectlOk(['apply', '-k', dir(operator)]); },
      uninstall: async (operator) => { await kubectlOk(['delete', '-k', dir(operator), '--wait=false']); },
      installedObjects: (operator) => kubectlOk(['kustomize', dir(operator)]),
    };
  }
  const release = env.E2E_RELEASE_DIR;
  if (release === undefined || release === '') {
    throw new Error(`E2E_INSTALL=${way} installs from a release: set E2E_RELEASE_DIR to what npm run release -- --out DIR wrote (kind/e2e.sh --install ${way} writes one)`);
  }
  if (way === 'manifest') {
    const manifest = (operator: string): string => join(release, operator, 'install.yaml');
    return {
      way,
      install: async (operator) => { await kubectlOk(['apply', '--server-side', '-f', manifest(operator)]); },
      uninstall: async (operator) => { await kubectlOk(['delete', '-f', manifest(operator), '--wait=false']); },
      installedObjects: (operator) => readFile(manifest(operator), 'utf8'),
    };
  }
  return chartInstaller(release, kubectlOk, kubeconfig);
}

/** helm, provisioned as the release's tests use it, with a home of its own so that no user's helm settings take part. */
async function chartInstaller(release: string, kubectlOk: KubectlOk, kubeconfig: string): Promise<OperatorInstaller> {
  const helmBinary = await findProvisionedTool('helm');
  const home = await mkdtemp(join(tmpdir(), 'e2e-helm-'));
  const helm = async (args: readonly string[]): Promise<string> => {
    const env = { KUBECONFIG: kubeconfig, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
    const result = await runCommand(helmBinary, args, env);
    if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${String(result.code)}):\n${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  return {
    way: 'chart',
    install: async (operator) => {
      // The chart leaves the namespace to the user (`--create-namespace` makes it bare); its notes say to enforce the
      // restricted Pod Security level, as deploy/ does: done before any Pod is made, as a careful user would.
      const namespace = operatorNamespace(operator);
      await kubectlOk(['apply', '-f', '-'], { input: JSON.stringify({
        apiVersion: 'v1', kind: 'Namespace',
        metadata: { name: namespace, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' } },
      }) });
      await helm(['upgrade', '--install', operator, join(release, operator, 'chart'), '--namespace', namespace]);
    },
    uninstall: async (operator) => { await helm(['uninstall', operator, '--namespace', operatorNamespace(operator)]); },
    installedObjects: (operator) => helm(['get', 'manifest', operator, '--namespace', operatorNamespace(operator)]),
  };
}
