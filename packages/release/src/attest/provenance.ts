// The SLSA v1 provenance predicate (slsa.dev/spec/v1.0/provenance) a release attaches to each pushed image: what was
// built (the Dockerfile target of the image's name, from the repository at a commit) with which parameters, and by
// whom. It claims only what the release knows: the builder is the maintainer's own machine running `npm run release
// -- --push --sign-key`, which nothing but the signing key vouches for, not a hosted builder; the
// commit comes with whether the working tree had changes (or files git does not track) beside it, since the images
// are built from the tree, not from the commit.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';
import type { PushedImage } from './image-sbom.ts';

const run = promisify(execFile);

// The project has no public home recorded in the repository (no remote, no "repository" in package.json), so the
// build type and the builder are named by URNs of its own; packages/release/README.md describes both.
/** `npm run release -- --push`: tools/images/build.sh builds the Dockerfile's target of the image's name, docker pushes it. */
export const BUILD_TYPE = 'urn:k8s-operators:release:npm-run-release:v1';
/** A maintainer's own machine: a local build. */
export const LOCAL_BUILDER = 'urn:k8s-operators:release:builder:local';

export interface SourceState {
  /** The commit HEAD names. */
  commit: string;
  /** Whether the working tree differed from it (changed, staged or untracked files). */
  dirty: boolean;
}

async function git(repository: string, args: readonly string[]): Promise<string> {
  const result = await run('git', ['-C', repository, ...args], { maxBuffer: 16 * 1024 * 1024 }).catch((error: unknown) => {
    throw new Error(`the provenance names the git commit the images were built from, and git ${args.join(' ')} failed in ${repository}: ${(error as { stderr?: string }).stderr?.trim() ?? (error as Error).message}`, { cause: error });
  });
  return result.stdout.trim();
}

export async function sourceState(repository = REPOSITORY_ROOT): Promise<SourceState> {
  return { commit: await git(repository, ['rev-parse', 'HEAD']), dirty: (await git(repository, ['status', '--porcelain'])) !== '' };
}

export interface BuildRun { version: string; source: SourceState; startedOn: Date; finishedOn: Date }

const timestamp = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function provenancePredicate(image: PushedImage, build: BuildRun): Record<string, unknown> {
  return {
    buildDefinition: {
      buildType: BUILD_TYPE,
      externalParameters: {
        version: build.version, registry: image.registry, image: image.name,
        source: { gitCommit: build.source.commit, dirty: build.source.dirty },
      },
      resolvedDependencies: [{ name: 'source', digest: { gitCommit: build.source.commit } }],
    },
    runDetails: {
      builder: { id: LOCAL_BUILDER },
      metadata: { startedOn: timestamp(build.startedOn), finishedOn: timestamp(build.finishedOn) },
    },
  };
}
