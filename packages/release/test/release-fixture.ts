// What the release tests share: a release written once per test file into a scratch directory, the project's
// kubectl, the pinned helm (`npm run provision` builds both), and helm run with its own scratch home so that a test
// never reads or writes the user's Helm configuration.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { findProvisionedTool, runCommand, type CommandResult } from '@k8s-operators/testkit';

import { isK8sObject, type K8sObject } from '../src/k8s-object.ts';
import { writeRelease } from '../src/release.ts';
import type { ImageRelease } from '../src/release-images.ts';

export const RELEASE: ImageRelease = { registry: 'ghcr.io/k8s-operators', version: '0.2.0' };

export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text).map((d) => d.toJSON() as unknown).filter((o) => o !== null).map((o) => {
    if (!isK8sObject(o)) throw new Error(`not a Kubernetes object: ${JSON.stringify(o).slice(0, 200)}`);
    return o;
  });
}

/** Objects in one order, whatever order they were printed in. */
export const sortedObjects = (objects: readonly K8sObject[]): K8sObject[] =>
  [...objects].sort((a, b) => `${a.kind}/${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.namespace ?? ''}/${b.metadata.name}`));

export interface ReleaseFixture { readonly kubectl: string; readonly helm: string; readonly dir: string; helmRun(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<CommandResult> }

/** The release written in beforeAll; `tools` says which provisioned programs the file needs besides kubectl. */
export function useRelease(prefix: string, tools: { helm: boolean }): ReleaseFixture {
  const fixture = {
    kubectl: '', helm: '', dir: '',
    helmRun(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CommandResult> {
      const home = join(fixture.dir, '.helm');
      return runCommand(fixture.helm, args, { HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data'), ...env });
    },
  };
  beforeAll(async () => {
    fixture.kubectl = join(await findProvisionedTool('control-plane'), 'kubectl');
    if (tools.helm) fixture.helm = await findProvisionedTool('helm');
    fixture.dir = await mkdtemp(join(tmpdir(), prefix));
    await writeRelease(fixture.kubectl, RELEASE, fixture.dir);
  });
  afterAll(async () => {
    if (fixture.dir !== '') await rm(fixture.dir, { recursive: true, force: true });
  });
  return fixture;
}
