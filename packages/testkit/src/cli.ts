// npm run cluster -- up|down|status|env: the same local cluster the tests use, for people, the demo and
// the e2e specs. `up` starts a supervisor process in the background that owns every cluster process (they
// die with it) and prints, as its last line, the admin kubeconfig's path.
import { spawn } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { provideBinaries } from './binaries.ts';
import { TestCluster } from './cluster.ts';
import { isProcessRunning } from './process-running.ts';

interface ClusterState {
  pid: number;
  kubeconfig: string;
  server: string;
  binDir: string;
  dir: string;
}

const USAGE = `Usage: npm run cluster -- <command> [options]

Commands:
  up        start etcd, kube-apiserver, kube-controller-manager and the local node in the background
  down      stop everything and delete the cluster's data
  status    say whether the cluster is running and healthy
  env       print shell export lines: KUBECONFIG and a PATH with the pinned kubectl first
            (eval "$(npm run -s cluster -- env)")

Options:
  --image-map <file>   image map YAML merged over the built-in rules (default: $TESTKIT_IMAGE_MAP)
  --state-dir <dir>    where the cluster lives (default: $TESTKIT_STATE_DIR or ~/.cache/operators-testkit/cluster)
`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'image-map': { type: 'string' }, 'state-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
const stateDir = resolve(values['state-dir'] ?? process.env.TESTKIT_STATE_DIR ?? join(homedir(), '.cache', 'operators-testkit', 'cluster'));
const stateFile = join(stateDir, 'state.json');

async function readState(): Promise<ClusterState | undefined> {
  try {
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as ClusterState;
    return isProcessRunning(state.pid) ? state : undefined;
  } catch {
    return undefined;
  }
}

async function up(): Promise<number> {
  const running = await readState();
  if (running) {
    console.log(`testkit cluster is already running (API server ${running.server})`);
    console.log(running.kubeconfig);
    return 0;
  }
  // Provided here, in the foreground, so a first run's download or build shows its progress in this terminal
  // rather than in the background supervisor's log.
  try {
    await provideBinaries();
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }
  await rm(stateDir, { recursive: true, force: true });
  await mkdir(stateDir, { recursive: true });
  const log = join(stateDir, 'cluster.log');
  const imageMap = values['image-map'] ? ['--image-map', resolve(values['image-map'])] : [];
  const child = spawn(process.execPath, [...process.execArgv, new URL(import.meta.url).pathname, 'serve', '--state-dir', stateDir, ...imageMap], {
    detached: true, stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')], env: process.env,
  });
  child.unref();
  console.log('starting the testkit cluster...');
  const deadline = Date.now() + 60 * 60_000;
  while (Date.now() < deadline) {
    const state = await readState();
    if (state) {
      console.log(`testkit cluster is up: API server ${state.server}, node testkit-node (Pods run as local processes)`);
      console.log('  use kubectl:  eval "$(npm run -s cluster -- env)"');
      console.log('  stop it:      npm run cluster -- down');
      console.log(state.kubeconfig);
      return 0;
    }
    if (child.exitCode !== null || (child.pid !== undefined && !isProcessRunning(child.pid))) {
      console.error(`the cluster failed to start; its log (${log}) says:\n${(await readFile(log, 'utf8')).split('\n').slice(-30).join('\n')}`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  console.error(`the cluster did not come up in time; see ${log}`);
  return 1;
}

async function serve(): Promise<number> {
  // Data lives in the temp directory, not under the home directory: Pods run as other users (PostgreSQL as
  // postgres), and a home directory is usually closed to them.
  const dataDir = await mkdtemp(join(tmpdir(), 'testkit-cluster-'));
  const cluster = await TestCluster.start({ dir: dataDir, ...(values['image-map'] ? { imageMapFile: values['image-map'] } : {}) });
  const state: ClusterState = { pid: process.pid, kubeconfig: cluster.adminKubeconfig, server: cluster.controlPlane.url, binDir: cluster.binDir, dir: cluster.dir };
  await writeFile(stateFile, JSON.stringify(state, null, 2));
  console.log(`cluster up: ${state.server}`);
  await new Promise<void>((resolveStop) => {
    process.once('SIGTERM', resolveStop);
    process.once('SIGINT', resolveStop);
  });
  console.log('stopping');
  await cluster.stop();
  await rm(stateFile, { force: true });
  return 0;
}

async function down(): Promise<number> {
  const state = await readState();
  if (state) {
    process.kill(state.pid, 'SIGTERM');
    const deadline = Date.now() + 30_000;
    while (isProcessRunning(state.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Escalate; the kernel then kills the cluster's processes with it (they carry PR_SET_PDEATHSIG).
    if (isProcessRunning(state.pid)) process.kill(state.pid, 'SIGKILL');
    await rm(state.dir, { recursive: true, force: true });
  }
  if (existsSync(stateDir)) await rm(stateDir, { recursive: true, force: true });
  console.log(state ? 'testkit cluster stopped' : 'no testkit cluster was running');
  return 0;
}

/**
 * The running cluster's state; when there is none, says so and how to start one through `say` (`env` says it on
 * stderr, since its stdout is meant for eval).
 */
async function runningCluster(say: (line: string) => void): Promise<ClusterState | undefined> {
  const state = await readState();
  if (!state) say('testkit cluster: not running (start it with: npm run cluster -- up)');
  return state;
}

async function status(): Promise<number> {
  const state = await runningCluster(console.log);
  if (!state) return 1;
  const kubectl = (args: string[]): Promise<string> => new Promise((res) => {
    const child = spawn(join(state.binDir, 'kubectl'), args, { env: { ...process.env, KUBECONFIG: state.kubeconfig } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('close', () => { res(out.trim()); });
  });
  console.log(`testkit cluster: running (supervisor pid ${state.pid})`);
  console.log(`API server:  ${state.server}  readyz=${await kubectl(['get', '--raw', '/readyz'])}`);
  console.log(`kubeconfig:  ${state.kubeconfig}`);
  console.log(await kubectl(['get', 'nodes', '-o', 'wide']));
  return 0;
}

async function env(): Promise<number> {
  const state = await runningCluster(console.error);
  if (!state) return 1;
  console.log(`export KUBECONFIG=${JSON.stringify(state.kubeconfig)}`);
  console.log(`export PATH=${JSON.stringify(`${state.binDir}:`)}"$PATH"`);
  return 0;
}

const commands: Record<string, () => Promise<number>> = { up, down, status, env, serve };
const command = positionals[0];
const run = command ? commands[command] : undefined;
if (values.help || !run) {
  (run || values.help ? console.log : console.error)(USAGE);
  process.exitCode = values.help ? 0 : 2;
} else {
  process.exitCode = await run();
}
