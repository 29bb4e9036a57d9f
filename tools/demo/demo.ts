// npm run demo [-- --down]: the whole project on one machine. Builds the workspace, starts the local cluster (and the
// Prism Central simulator), installs every operator with kubectl apply -k, walks through each operator's story with
// what a user would see, and leaves everything running with instructions; --down stops it all.
import { execFile, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, provideBinaries } from '@k8s-operators/testkit';
import { createDemoContext, until } from './demo-context.ts';
import { maintpageStory } from './maintpage-story.ts';
import { nutanixStory, type PrismEndpoint } from './nutanix-story.ts';
import { postgresqlStory } from './postgresql-story.ts';

const repo = join(import.meta.dirname, '..', '..');
const stateDir = process.env.TESTKIT_STATE_DIR ?? join(homedir(), '.cache', 'operators-testkit', 'cluster');
const demoDir = join(homedir(), '.cache', 'operators-testkit', 'demo');
const { values } = parseArgs({ options: { down: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } } });

function run(command: string, args: readonly string[], options: { quiet?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { cwd: repo, maxBuffer: 64 * 1024 * 1024, env: process.env }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed:\n${stderr || stdout}`));
      else resolve(stdout);
    });
    if (!options.quiet) child.stderr?.pipe(process.stderr);
  });
}
const clusterCli = (...args: string[]): Promise<string> => run(process.execPath, ['--conditions=source', join(repo, 'packages/testkit/src/cli.ts'), ...args, '--state-dir', stateDir]);

async function down(): Promise<void> {
  const pid = Number(await readFile(join(demoDir, 'prism-simulator.pid'), 'utf8').catch(() => '0'));
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  await rm(demoDir, { recursive: true, force: true });
  process.stdout.write(await clusterCli('down'));
}

/** Starts the Prism Central simulator in the background (TLS, a fresh CA), for the nutanix operator to talk to. */
async function startPrismSimulator(): Promise<PrismEndpoint> {
  const port = await freePort();
  const caFile = join(demoDir, 'prism-ca.pem');
  const log = join(demoDir, 'prism-simulator.log');
  const child = spawn(process.execPath, ['--conditions=source', join(repo, 'packages/prism-simulator/src/cli.ts'), '--port', String(port), '--tls', '--ca-out', caFile], {
    detached: true, stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')],
  });
  child.unref();
  await writeFile(join(demoDir, 'prism-simulator.pid'), String(child.pid ?? ''));
  const output = await until('the Prism Central simulator', async () => {
    const text = await readFile(log, 'utf8').catch(() => '');
    return text.includes('CA certificate written') ? text : undefined;
  }, 30_000);
  const field = (name: string): string => new RegExp(`^\\s+${name}:\\s+(.+)$`, 'm').exec(output)?.[1]?.trim() ?? '';
  const [clusterName = '', clusterUuid = ''] = field('cluster').split(' ');
  return { host: '127.0.0.1', port, username: field('username'), password: field('password'), caPem: await readFile(caFile, 'utf8'), clusterName, clusterUuid };
}

if (values.help) {
  console.log('usage: npm run demo [-- --down]');
} else if (values.down) {
  await down();
} else {
  const started = performance.now();
  console.log('The k8s-operators demo: a local Kubernetes cluster, the three operators installed from deploy/, and their stories.\n');
  const kubectlPath = (await provideBinaries()).kubectl;
  const ctx0 = createDemoContext('', kubectlPath);
  await ctx0.step('build the workspace (the local node runs the operators from their built dist/)', () =>
    run(join(repo, 'node_modules/.bin/nx'), ['run-many', '-t', 'build', '--output-style=static'], { quiet: true }));
  const kubeconfig = await ctx0.step('start the local cluster (etcd, kube-apiserver, kube-controller-manager, a local node)', async () =>
    (await clusterCli('up')).trim().split('\n').at(-1) ?? '');
  const ctx = createDemoContext(kubeconfig, kubectlPath);
  await mkdir(demoDir, { recursive: true });
  const prism = await ctx.step('start the Prism Central simulator (HTTPS with its own CA)', () => startPrismSimulator());
  const stories: [string, () => Promise<void>][] = [
    ['maintpage', () => maintpageStory(ctx, repo)],
    ['postgresql', () => postgresqlStory(ctx, repo)],
    ['nutanix', () => nutanixStory(ctx, repo, prism)],
  ];
  const failed: string[] = [];
  for (const [name, story] of stories) {
    try {
      await story();
    } catch {
      failed.push(name);
      ctx.summary.push({ story: name, outcome: 'FAILED (see above)' });
    }
    console.log('');
  }
  console.log(`Summary (${((performance.now() - started) / 1000).toFixed(0)} s):`);
  for (const { story, outcome } of ctx.summary) console.log(`  ${story.padEnd(12)} ${outcome}`);
  console.log(`\nThe cluster is still running. Use it:\n  eval "$(npm run -s cluster -- env)"\n  kubectl get maintpages,postgresqls,ahvvms -A\nStop everything: npm run demo -- --down`);
  await writeFile(join(demoDir, 'kubeconfig-path'), kubeconfig);
  process.exitCode = failed.length > 0 ? 1 : 0;
}
