import { describe, expect, test } from 'vitest';
import { operatorInstaller } from './e2e-install.ts';

const noKubectl = (): Promise<string> => Promise.reject(new Error('kubectl is not to be called while choosing the way'));

describe('operatorInstaller', () => {
  test('without E2E_INSTALL, kubectl apply -k of deploy/<operator>, or of the overlay E2E_KUSTOMIZE_DIR names', async () => {
    const calls: string[][] = [];
    const kubectlOk = (args: readonly string[]): Promise<string> => { calls.push([...args]); return Promise.resolve(''); };
    const plain = await operatorInstaller({}, kubectlOk, 'kubeconfig', '/repo');
    expect(plain.way).toBe('kustomize');
    await plain.install('maintpage-operator');
    await plain.uninstall('maintpage-operator');
    await plain.installedObjects('maintpage-operator');
    const overlay = await operatorInstaller({ E2E_KUSTOMIZE_DIR: '/overlays/maintpage-operator' }, kubectlOk, 'kubeconfig', '/repo');
    await overlay.install('maintpage-operator');
    expect(calls).toEqual([
      ['apply', '-k', '/repo/deploy/maintpage-operator'],
      ['delete', '-k', '/repo/deploy/maintpage-operator', '--wait=false'],
      ['kustomize', '/repo/deploy/maintpage-operator'],
      ['apply', '-k', '/overlays/maintpage-operator'],
    ]);
  });

  test('a way that does not exist is refused with the ways there are', async () => {
    await expect(operatorInstaller({ E2E_INSTALL: 'helm' }, noKubectl, 'kubeconfig', '/repo')).rejects
      .toThrow('E2E_INSTALL=helm is not a way to install: use one of kustomize, manifest, chart (kind/e2e.sh --install WAY sets it)');
  });

  test.each(['manifest', 'chart'])('%s without a release to install from says which variable to set', async (way) => {
    await expect(operatorInstaller({ E2E_INSTALL: way }, noKubectl, 'kubeconfig', '/repo')).rejects
      .toThrow(`E2E_INSTALL=${way} installs from a release: set E2E_RELEASE_DIR to what npm run release -- --out DIR wrote (kind/e2e.sh --install ${way} writes one)`);
  });
});
