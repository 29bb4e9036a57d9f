// The install the upgrade test starts from: the operators as an earlier commit of this repository shipped them, its
// images built once per machine by upgrade-base-images.sh and its own deploy/ applied through an overlay that names
// those images.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { REPOSITORY_ROOT, runCommand } from '@k8s-operators/testkit';

/**
 * 81e4bc4 ("The e2e specs run the images users install") is the first commit whose three operator images ran in e2e:
 * from it on, every operator and page server Pod of the e2e specs ran from its image (TESTKIT_IMAGES=engine), and the
 * seventh session's closing note (stop 22) records the three specs green against those images. Earlier commits'
 * images crashed at start or were never run, so an upgrade from them would test nothing a user had.
 */
export const BASE_COMMIT = '81e4bc4af6f08314ccf46fb1e5e55e3657aeb589';
export const OPERATORS = ['maintpage-operator', 'postgresql-operator', 'nutanix-ahvvm-operator'] as const;
export type Operator = (typeof OPERATORS)[number];

const BUILD_SCRIPT = fileURLToPath(new URL('./upgrade-base-images.sh', import.meta.url));

/** Builds (or finds) the base commit's four images; returns their tag. Progress goes to this process's stderr. */
export function buildBaseImages(commit = BASE_COMMIT): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('bash', [BUILD_SCRIPT, commit], { maxBuffer: 1024 * 1024 }, (error, stdout) => {
      if (error) reject(new Error(`${BUILD_SCRIPT} ${commit} failed: ${error.message}`));
      else resolve(stdout.trim());
    });
    child.stderr?.pipe(process.stderr);
  });
}

async function exportTree(commit: string, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const archive = join(dir, '..', `deploy-${commit.slice(0, 7)}.tar`);
  const made = await runCommand('git', ['-C', REPOSITORY_ROOT, 'archive', '--output', archive, commit, 'deploy']);
  if (made.code !== 0) throw new Error(`git archive ${commit} deploy failed: ${made.stderr}`);
  const unpacked = await runCommand('tar', ['-xf', archive, '-C', dir]);
  if (unpacked.code !== 0) throw new Error(`unpacking ${archive} failed: ${unpacked.stderr}`);
}

/**
 * Writes the base commit's deploy/ under `dir` and, per operator, an overlay of it that runs the images tagged `tag`;
 * returns the overlay directories (for `kubectl apply -k`) and the commit's deploy/ (for its samples).
 */
export async function writeBaseInstall(dir: string, tag: string, commit = BASE_COMMIT): Promise<{ overlays: Record<Operator, string>; deploy: string }> {
  const tree = join(dir, 'tree');
  await exportTree(commit, tree);
  const overlays = {} as Record<Operator, string>;
  for (const operator of OPERATORS) {
    const overlay = join(dir, 'overlays', operator);
    await mkdir(overlay, { recursive: true });
    const images = [{ name: `ghcr.io/k8s-operators/${operator}`, newTag: tag }];
    // The MaintPage operator names its page server image in an argument, which kustomize's images do not reach: the
    // test op fails the build if that argument moved, rather than leaving the page server on another version.
    const argsPath = '/spec/template/spec/containers/0/args/3';
    const patches = operator !== 'maintpage-operator' ? [] : [{
      target: { kind: 'Deployment', name: 'maintpage-operator-controller-manager' },
      patch: stringify([
        { op: 'test', path: argsPath, value: '--page-server-image=ghcr.io/k8s-operators/maintpage-page-server:0.1.0' },
        { op: 'replace', path: argsPath, value: `--page-server-image=ghcr.io/k8s-operators/maintpage-page-server:${tag}` },
      ]),
    }];
    await writeFile(join(overlay, 'kustomization.yaml'), stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [`../../tree/deploy/${operator}`], images, patches,
    }));
    overlays[operator] = overlay;
  }
  return { overlays, deploy: join(tree, 'deploy') };
}
