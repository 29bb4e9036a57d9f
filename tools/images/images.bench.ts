// npm run bench -- images [--cold]: per image, the build time with every layer cached (and, with --cold, from no cache
// but the base images), its size, the seconds from `docker run` to its health endpoint (/readyz: informers synced),
// and its RSS once it answers. Figures only; the last line is one JSON object.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { ControlPlane, imageRef, PROJECT_IMAGES, REPOSITORY_ROOT, startImage } from '@k8s-operators/testkit';

const run = promisify(execFile);
const { values } = parseArgs({ options: { cold: { type: 'boolean', default: false }, starts: { type: 'string', default: '5' } } });
const starts = Number(values.starts);

/** Seconds `npm run images -- <name>` takes, its output shown as it goes. */
async function buildSeconds(name: string, flags: string[]): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('bash', [join(REPOSITORY_ROOT, 'tools/images/build.sh'), ...flags, name], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('exit', (code) => { if (code === 0) resolve(); else reject(new Error(`building ${name} exited with ${code}`)); });
  });
  return (performance.now() - started) / 1000;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const dir = await mkdtemp(join(tmpdir(), 'images-bench-'));
const cp = await ControlPlane.start({ dir });
const results: Record<string, Record<string, number>> = {};
try {
  for (const image of PROJECT_IMAGES) {
    if (image.crds) await run(cp.binaries.kubectl, ['apply', '-k', join(REPOSITORY_ROOT, image.crds)], { env: { ...process.env, KUBECONFIG: cp.adminKubeconfig } });
  }
  for (const image of PROJECT_IMAGES) {
    const figures: Record<string, number> = {};
    if (values.cold) figures.cold_build_s = await buildSeconds(image.name, ['--no-cache']);
    figures.cached_build_s = await buildSeconds(image.name, []);
    figures.size_mb = Number((await run('docker', ['image', 'inspect', '--format', '{{.Size}}', imageRef(image.name)])).stdout) / 1e6;
    const ready: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < starts; i++) {
      const started = await startImage(image, cp.adminKubeconfig);
      ready.push(started.readyMs / 1000);
      rss.push((await started.rssBytes()) / 2 ** 20);
      await started.stop();
    }
    figures.ready_s_median = median(ready);
    figures.rss_mib_median = median(rss);
    results[image.name] = figures;
    console.log(`${image.name}: ${Object.entries(figures).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')} (ready over ${starts} starts: ${ready.map((s) => s.toFixed(2)).join(' ')})`);
  }
} finally {
  await cp.stop();
  await rm(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ benchmark: 'images', starts, images: results }));
