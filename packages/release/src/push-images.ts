// The release's images, built for its registry and version (npm run images' builder, layers cached) and pushed there;
// what comes back is each image's digest, which the manifests then pin, so what runs is exactly what was pushed.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';

const run = promisify(execFile);
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** Runs docker; a failure says `what` failed, with docker's own words. Returns its stdout. */
export async function docker(args: readonly string[], what: string): Promise<string> {
  const result = await run('docker', [...args], { maxBuffer: 16 * 1024 * 1024 }).catch((error: unknown) => {
    const stderr = (error as { stderr?: string }).stderr?.trim() ?? (error as Error).message;
    throw new Error(`${what} failed: ${stderr}`, { cause: error });
  });
  return result.stdout;
}

/** Builds and pushes `images` as `<registry>/<image>:<version>`; returns each image's digest (sha256:…). */
export async function pushReleaseImages(images: readonly string[], registry: string, version: string, say: (line: string) => void): Promise<Record<string, string>> {
  say(`release: building ${images.join(', ')} as ${registry}/<image>:${version}`);
  await run('bash', [join(REPOSITORY_ROOT, 'tools/images/build.sh'), '--registry', registry, '--tag', version, ...images], { maxBuffer: 64 * 1024 * 1024 })
    .catch((error: unknown) => { throw new Error(`building the images failed:\n${(error as { stderr?: string }).stderr ?? (error as Error).message}`, { cause: error }); });
  const digests: Record<string, string> = {};
  for (const name of images) {
    const reference = `${registry}/${name}:${version}`;
    say(`release: pushing ${reference}`);
    await docker(['push', '--quiet', reference], `docker push ${reference}`);
    // The registry's digest of the manifest just pushed, as the engine recorded it for this repository.
    const repoDigests = JSON.parse(await docker(['image', 'inspect', '--format', '{{json .RepoDigests}}', reference], `docker image inspect ${reference}`)) as string[];
    const digest = repoDigests.find((d) => d.startsWith(`${registry}/${name}@`))?.split('@')[1];
    if (digest === undefined || !DIGEST.test(digest)) throw new Error(`docker push ${reference} left no digest for ${registry}/${name} (it has ${repoDigests.join(', ') || 'none'})`);
    digests[name] = digest;
  }
  return digests;
}
