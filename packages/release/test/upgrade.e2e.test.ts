// Upgrading an installed operator, as a user does: the three operators as an earlier commit shipped them (BASE_COMMIT,
// its images and its own deploy/), objects of every kind left to converge, then `kubectl apply -k deploy/<operator>`
// of this tree, `kubectl apply --server-side -f install.yaml` of this tree's release, or its chart taking the install
// over, upgraded and rolled back. Nothing may be redone or lost: no VM created again, no backup retaken or deleted, no database pod
// replaced or restored, no traffic switch, no reconcile error; every object converges under the new version.
// On testkit's local cluster with the images run by the container engine (an earlier commit cannot run as this tree's
// dist/ processes). UPGRADE_TARGET_DEPLOY names another deploy/ to upgrade to (default: this tree's).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { startPrismSimulator, type PrismSimulator } from '@k8s-operators/prism-simulator';
import { engineAvailable, findProvisionedTool, openE2eCluster, prepareScrapeAccess, REPOSITORY_ROOT, scrapePodMetrics, waitFor, waitForCrdsEstablished, runCommand, type E2eCluster } from '@k8s-operators/testkit';
import { writeRelease } from '../src/release.ts';
import { buildBaseImages, OPERATORS, writeBaseInstall, type Operator } from './upgrade-base.ts';

const NS = 'upgrade-e2e';
const CRDS: Readonly<Record<Operator, string[]>> = {
  'maintpage-operator': ['maintpages.maintpage.example.com'],
  'postgresql-operator': ['postgresqls.exp.wheel.jp', 'postgresqlbackups.exp.wheel.jp'],
  'nutanix-ahvvm-operator': ['ahvvms.nutanix.com'],
};
const operatorNs = (operator: Operator): string => `${operator}-system`;
const deployment = (operator: Operator): string => `deployment/${operator}-controller-manager`;
const TARGET_DEPLOY = process.env.UPGRADE_TARGET_DEPLOY ?? join(REPOSITORY_ROOT, 'deploy');
const NEW_TAG = '0.1.0';

interface Meta { name: string; uid: string; generation?: number }
interface Condition { type: string; status: string; reason: string; lastTransitionTime?: string }
interface Obj { metadata: Meta; status?: { observedGeneration?: number; conditions?: Condition[] } & Record<string, unknown>; spec?: Record<string, unknown> }
interface EventItem { metadata: { uid: string }; regarding?: { name?: string; kind?: string }; reason?: string; note?: string; type?: string }

/** What a redo of any kind would change, read before and after the upgrade. */
interface Snapshot {
  vm?: { uuid: string; vmsInPrism: number; createRequests: number; specVersion: number };
  backups?: { name: string; uid: string; trigger: unknown; phase: unknown; sha256: unknown }[];
  storedFiles?: string[];
  dbPods?: { name: string; uid: string }[];
  restored?: Condition;
  maintenance?: { selector: string; endpoints: string[]; status: unknown; maintenancePods: string[] };
}

const engine = await engineAvailable();
let cluster: E2eCluster;
let prism: PrismSimulator;
let work: string;
/** What beforeAll started, stopped in reverse order after each way's tests. */
const cleanups: (() => Promise<void>)[] = [];
let base: Awaited<ReturnType<typeof writeBaseInstall>>;
let before: Snapshot | undefined;
/** The operators the running way installs. */
let operators: readonly Operator[] = OPERATORS;
const has = (operator: Operator): boolean => operators.includes(operator);
let metricsToken: string;
const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;
const say = (line: string): void => { process.stderr.write(`upgrade: ${line}\n`); };

const kubectlOk = (args: readonly string[], input?: string): Promise<string> => cluster.kubectlOk(args, input === undefined ? undefined : { input });
const getJson = async <T>(args: readonly string[]): Promise<T> => JSON.parse(await kubectlOk(['get', ...args, '-o', 'json'])) as T;
const inNs = (resource: string): Promise<Obj> => getJson<Obj>(['-n', NS, resource]);

async function installBase(tag: string, from: Base): Promise<void> {
  work = await mkdtemp(join(tmpdir(), 'upgrade-e2e-'));
  const dir = work;
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  base = await writeBaseInstall(work, tag);
  // The Secret first, as the base commit's install instructions say; v3 pinned, the one API the base commit spoke.
  await kubectlOk(['create', 'namespace', operatorNs('nutanix-ahvvm-operator')]);
  await kubectlOk(['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 'prism-central', namespace: operatorNs('nutanix-ahvvm-operator') },
    stringData: {
      PRISM_HOST: prism.host, PRISM_PORT: String(prism.port), PRISM_USER: prism.username, PRISM_PASS: prism.password,
      PRISM_CLUSTERUUID: prism.clusters[0]?.uuid ?? '', PRISM_CA_CERT: prism.caCertPem ?? '', PRISM_API_VERSION: 'v3',
    },
  }));
  if (from === 'chart') {
    // This tree's chart with the base commit's images, which run under its arguments (only the PostgreSQL operator's
    // changed, which is why it is not among this way's operators).
    const helm = await helmIn(work);
    await writeRelease(helm.kubectl, { registry: 'ghcr.io/k8s-operators', version: NEW_TAG }, join(work, 'release'));
    for (const operator of operators) {
      const images = ['--set', `image.tag=${tag}`, ...(operator === 'maintpage-operator' ? ['--set', `pageServerImage.tag=${tag}`] : [])];
      await helm.ok(['install', operator, join(work, 'release', operator, 'chart'), '--namespace', operatorNs(operator), '--create-namespace', '--wait', '--timeout', '5m', ...images]);
      await waitForCrdsEstablished((args) => kubectlOk(args), CRDS[operator]);
    }
    return;
  }
  for (const operator of operators) {
    await kubectlOk(['apply', '-k', base.overlays[operator]]);
    await waitForCrdsEstablished((args) => kubectlOk(args), CRDS[operator]);
  }
  for (const operator of operators) await kubectlOk(['-n', operatorNs(operator), 'rollout', 'status', deployment(operator), '--timeout=300s']);
}

/** The provisioned helm, on this cluster, with a home of its own under `dir`; and the provisioned kubectl. */
async function helmIn(dir: string): Promise<{ kubectl: string; ok(args: readonly string[]): Promise<void> }> {
  const helm = await findProvisionedTool('helm');
  const home = join(dir, '.helm');
  const env = { KUBECONFIG: cluster.kubeconfig, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
  return {
    kubectl: join(await findProvisionedTool('control-plane'), 'kubectl'),
    ok: async (args) => {
      const result = await runCommand(helm, args, env);
      if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${String(result.code)}):\n${result.stderr}${result.stdout}`);
    },
  };
}

/** The operator Pods' images, to tell which version runs. */
async function operatorImages(operator: Operator): Promise<string[]> {
  const pods = await getJson<{ items: { spec: { containers: { image: string }[] }; metadata: { deletionTimestamp?: string } }[] }>(['-n', operatorNs(operator), 'pods', '-l', 'control-plane=controller-manager']);
  return [...new Set(pods.items.filter((p) => p.metadata.deletionTimestamp === undefined).flatMap((p) => p.spec.containers.map((c) => c.image)))];
}

/**
 * The operator runs the image of `tag` through the container engine: where an image is missing, the local node would
 * run this tree's dist/ instead (TESTKIT_IMAGES=auto), and an upgrade from this tree to itself proves nothing.
 */
async function expectRunning(operator: Operator, tag: string): Promise<void> {
  expect(await operatorImages(operator)).toEqual([`ghcr.io/k8s-operators/${operator}:${tag}`]);
  expect(await cluster.containerRuntimes(operatorNs(operator), 'control-plane=controller-manager')).toEqual(['docker']);
}

let volumeRuns = 0;
/** Every file on the PostgreSQL operator's backup volume, listed by a Pod that mounts its claim, as a user would look. */
async function storedFiles(): Promise<string[]> {
  const name = `backup-volume-${volumeRuns++}`;
  const namespace = operatorNs('postgresql-operator');
  await kubectlOk(['-n', namespace, 'apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      restartPolicy: 'Never',
      securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'list', image: 'busybox:1.37', command: ['find', '/backup', '-type', 'f'], securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }, volumeMounts: [{ name: 'backups', mountPath: '/backup', readOnly: true }] }],
      volumes: [{ name: 'backups', persistentVolumeClaim: { claimName: 'postgresql-operator-backups', readOnly: true } }],
    },
  }));
  const phase = await waitFor(async () => {
    const p = await kubectlOk(['-n', namespace, 'get', 'pod', name, '-o', 'jsonpath={.status.phase}']);
    return p === 'Succeeded' || p === 'Failed' ? p : undefined;
  }, { what: `pod ${name} to list the backup volume` });
  const logs = await kubectlOk(['-n', namespace, 'logs', name]);
  await kubectlOk(['-n', namespace, 'delete', 'pod', name, '--wait=false']);
  if (phase !== 'Succeeded') throw new Error(`listing the backup volume failed: ${logs}`);
  return logs.split('\n').filter(Boolean).sort();
}

async function readyEndpoints(service: string): Promise<string[]> {
  const slices = await getJson<{ items: { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }[] }>(['-n', NS, 'endpointslices', '-l', `kubernetes.io/service-name=${service}`]);
  return slices.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready).flatMap((e) => e.addresses).sort();
}

async function podsOf(selector: string): Promise<{ name: string; uid: string }[]> {
  const pods = await getJson<{ items: { metadata: Meta & { deletionTimestamp?: string } }[] }>(['-n', NS, 'pods', '-l', selector]);
  return pods.items.filter((p) => p.metadata.deletionTimestamp === undefined).map((p) => ({ name: p.metadata.name, uid: p.metadata.uid })).sort((a, b) => a.name.localeCompare(b.name));
}

async function snapshot(): Promise<Snapshot> {
  const taken: Snapshot = {};
  if (has('nutanix-ahvvm-operator')) {
    const avm = await inNs('ahvvm/ahvvm-from-operator');
    const uuid = typeof avm.status?.uuid === 'string' ? avm.status.uuid : '';
    const inspection = prism.inspect();
    const vm = inspection.vms.find((v) => v.uuid === uuid);
    taken.vm = { uuid, vmsInPrism: inspection.vms.length, createRequests: inspection.createRequests, specVersion: vm?.specVersion ?? -1 };
  }
  if (has('postgresql-operator')) {
    const backups = await getJson<{ items: Obj[] }>(['-n', NS, 'postgresqlbackups']);
    taken.backups = backups.items.map((b) => ({
      name: b.metadata.name, uid: b.metadata.uid, trigger: b.spec?.trigger, phase: b.status?.phase, sha256: b.status?.sha256,
    })).sort((a, b) => a.name.localeCompare(b.name));
    taken.storedFiles = await storedFiles();
    taken.dbPods = await podsOf('exp.wheel.jp/postgresql=foodb');
    taken.restored = (await inNs('postgresql/foodb')).status?.conditions?.find((c) => c.type === 'Restored');
  }
  if (has('maintpage-operator')) {
    const service = await inNs('service/httpd');
    taken.maintenance = {
      selector: JSON.stringify(service.spec?.selector ?? {}),
      endpoints: await readyEndpoints('httpd'),
      status: (await inNs('maintpage/example')).status?.maintpublishstatus,
      maintenancePods: (await podsOf('maintpage.example.com/role=maintenance,maintpage.example.com/instance=example')).map((p) => p.uid),
    };
  }
  return taken;
}

/** Whether the object's status describes its current spec, as its new operator wrote it. */
async function converged(resource: string): Promise<boolean> {
  const obj = await inNs(resource);
  const ready = obj.status?.conditions?.find((c) => c.type === 'Ready');
  return obj.status?.observedGeneration === obj.metadata.generation && ready?.status === 'True';
}

const namespaceEvents = async (): Promise<EventItem[]> => (await getJson<{ items: EventItem[] }>(['-n', NS, 'events.events.k8s.io'])).items;
/** The Events of the test namespace now, by uid: what came later is told apart exactly, not by second-long timestamps. */
const eventUids = async (): Promise<Set<string>> => new Set((await namespaceEvents()).map((e) => e.metadata.uid));
const eventsOtherThan = async (known: Set<string>): Promise<EventItem[]> => (await namespaceEvents()).filter((e) => !known.has(e.metadata.uid));

/** The error lines the running (new) operator Pods logged. */
async function operatorErrors(operator: Operator): Promise<string[]> {
  const names = (await kubectlOk(['-n', operatorNs(operator), 'get', 'pods', '-l', 'control-plane=controller-manager', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter(Boolean);
  const lines: string[] = [];
  for (const name of names) {
    const log = await kubectlOk(['-n', operatorNs(operator), 'logs', name]);
    lines.push(...log.split('\n').filter((l) => l.includes('"level":"error"') || l.includes('"level":"fatal"')).map((l) => `${name}: ${l}`));
  }
  return lines;
}

/** `controller_runtime_reconcile_total` and `_errors_total` of the operator's Pods, summed per controller and result. */
async function reconciles(operator: Operator): Promise<Record<string, number>> {
  const ips = (await kubectlOk(['-n', operatorNs(operator), 'get', 'pods', '-l', 'control-plane=controller-manager', '-o', 'jsonpath={.items[*].status.podIP}'])).split(' ').filter(Boolean);
  const counts: Record<string, number> = {};
  for (const ip of ips) {
    for (const line of (await scrapePodMetrics(cluster, ip, metricsToken)).split('\n')) {
      const found = /^controller_runtime_reconcile_(total|errors_total)\{([^}]*)\} (\S+)$/.exec(line);
      if (!found) continue;
      const labels = new Map([...(found[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
      const controller = labels.get('controller') ?? '';
      const key = found[1] === 'total' ? `${controller} ${labels.get('result') ?? ''}` : `${controller} errors`;
      counts[key] = (counts[key] ?? 0) + Number(found[3]);
    }
  }
  return counts;
}

function diagnoseOnFailure(): void {
  onTestFailed(async () => {
    for (const operator of OPERATORS) {
      const logs = await cluster.kubectl(['-n', operatorNs(operator), 'logs', deployment(operator), '--tail=60']);
      console.error(`--- ${operator} logs\n${logs.stdout}${logs.stderr}`);
    }
    const events = await cluster.kubectl(['-n', NS, 'get', 'events.events.k8s.io', '-o', 'custom-columns=AT:.metadata.creationTimestamp,REGARDING:.regarding.name,TYPE:.type,REASON:.reason,NOTE:.note']);
    const objects = await cluster.kubectl(['-n', NS, 'get', 'maintpages,postgresqls,postgresqlbackups,ahvvms,deployments,pods', '-o', 'wide']);
    console.error(`--- events\n${events.stdout}\n--- objects\n${objects.stdout}`);
  });
}


/** How the base version was installed: its own deploy/ (`kubectl apply -k`), or this tree's chart with its images. */
type Base = 'kustomize' | 'chart';
/** How the new version goes in over the base install. */
type Upgrade = (kubectl: string) => Promise<void>;

interface Way {
  name: string;
  base: Base;
  operators: readonly Operator[];
  upgrade: Upgrade;
  /** Back to the base version, when the way has one. */
  rollback?: () => Promise<void>;
}

/** Writes this tree's release (for the images the engine holds, ghcr.io/k8s-operators/<image>:0.1.0) under the work directory. */
async function release(kubectl: string): Promise<string> {
  const dir = join(work, 'release');
  await writeRelease(kubectl, { registry: 'ghcr.io/k8s-operators', version: NEW_TAG }, dir);
  return dir;
}
const helmWait = (operator: Operator): string[] => ['--namespace', operatorNs(operator), '--wait', '--timeout', '5m'];
/** The two operators whose base images run under this tree's chart: the PostgreSQL operator's arguments changed since. */
const CHART_RUNS_BASE: readonly Operator[] = ['maintpage-operator', 'nutanix-ahvvm-operator'];

const WAYS: readonly Way[] = [
  {
    name: 'kubectl apply -k deploy/<operator>',
    base: 'kustomize',
    operators: OPERATORS,
    upgrade: async () => {
      for (const operator of OPERATORS) {
        await kubectlOk(['apply', '-k', join(TARGET_DEPLOY, operator)]);
        await waitForCrdsEstablished((args) => kubectlOk(args), CRDS[operator]);
      }
    },
  },
  {
    name: 'kubectl apply --server-side -f install.yaml',
    base: 'kustomize',
    operators: OPERATORS,
    upgrade: async (kubectl) => {
      // Applied server-side over the base's client-side `kubectl apply -k`, with no --force-conflicts: the manifests
      // spell out the env[].valueFrom.fieldRef's apiVersion: v1, which the API server fills in; left out (as the base
      // commit did), the apply stopped at conflicts with kubectl-client-side-apply on those three fields.
      const dir = await release(kubectl);
      for (const operator of OPERATORS) {
        await kubectlOk(['apply', '--server-side', '-f', join(dir, operator, 'install.yaml')]);
        await waitForCrdsEstablished((args) => kubectlOk(args), CRDS[operator]);
      }
    },
  },
  {
    name: 'helm: the chart takes the install over, is upgraded and rolled back',
    base: 'kustomize',
    operators: OPERATORS,
    upgrade: async (kubectl) => {
      // A kubectl-installed operator moves to Helm with --take-ownership, and, since Helm 4 applies server-side as
      // another field manager, with --force-conflicts for every field kubectl's client-side apply set and the new
      // version changes (the image, the arguments, the CRDs' versions; the env fieldRefs too). Revision 2 changes a
      // Pod annotation, so the operators roll again; rolling back to 1 rolls them a third time.
      const dir = await release(kubectl);
      const helm = await helmIn(work);
      for (const operator of OPERATORS) {
        const chart = join(dir, operator, 'chart');
        await helm.ok(['upgrade', '--install', operator, chart, ...helmWait(operator), '--take-ownership', '--force-conflicts']);
        await helm.ok(['upgrade', operator, chart, ...helmWait(operator), '--set', 'podAnnotations.upgrade-test=revision-2']);
        await helm.ok(['rollback', operator, '1', ...helmWait(operator)]);
        await waitForCrdsEstablished((args) => kubectlOk(args), CRDS[operator]);
      }
    },
  },
  {
    name: 'helm: the chart installed with the base images, upgraded to the new ones, rolled back to the base',
    base: 'chart',
    operators: CHART_RUNS_BASE,
    upgrade: async () => {
      // --reset-values: given no values, helm upgrade reuses the last release's, which name the base images' tag.
      const helm = await helmIn(work);
      for (const operator of CHART_RUNS_BASE) await helm.ok(['upgrade', operator, join(work, 'release', operator, 'chart'), ...helmWait(operator), '--reset-values']);
    },
    rollback: async () => {
      const helm = await helmIn(work);
      for (const operator of CHART_RUNS_BASE) await helm.ok(['rollback', operator, '1', ...helmWait(operator)]);
    },
  },
];

const CONTROLLERS: Readonly<Record<Operator, string[]>> = { 'maintpage-operator': ['maintpage'], 'postgresql-operator': ['postgresql', 'postgresqlbackup'], 'nutanix-ahvvm-operator': ['ahvvm'] };
const RESOURCES: Readonly<Record<Operator, string[]>> = { 'maintpage-operator': ['maintpage/example'], 'postgresql-operator': ['postgresql/foodb'], 'nutanix-ahvvm-operator': ['ahvvm/ahvvm-from-operator'] };

/** Waits until only `tag`'s operator Pods run and every object is Ready with its observedGeneration current. */
async function waitForVersion(tag: string): Promise<void> {
  for (const operator of operators) {
    await kubectlOk(['-n', operatorNs(operator), 'rollout', 'status', deployment(operator), '--timeout=300s']);
    await waitFor(async () => JSON.stringify(await operatorImages(operator)) === JSON.stringify([`ghcr.io/k8s-operators/${operator}:${tag}`]), { what: `only ${operator}:${tag} Pods running`, timeoutMs: 180_000 });
    await expectRunning(operator, tag);
  }
  for (const resource of operators.flatMap((o) => RESOURCES[o])) {
    await waitFor(() => converged(resource), { what: `${resource} converged under ${tag} (Ready, observedGeneration current)`, timeoutMs: 180_000, intervalMs: 1_000 });
  }
}

/** What changed since `before` that a redo would change, Events since `eventsBefore` included; and errors logged. */
async function expectNothingRedone(from: Snapshot, eventsBefore: Set<string>): Promise<void> {
  const after = await snapshot();
  say(`after: ${JSON.stringify(after)}`);
  expect(after.vm, 'no VM created again or changed').toEqual(from.vm);
  // The sample's schedule (the base CRD's default, every 5 minutes) may come due around the upgrade: such a backup is
  // new and Scheduled. A slot taken before keeps its backup (one name per slot), so a retaken one would show as a
  // changed uid, phase or digest.
  // One still running when `from` was taken (a scheduled one that had just come due) has finished since: only its name
  // and uid must stay.
  const added = (after.backups ?? []).filter((b) => !from.backups?.some((kept) => kept.name === b.name));
  const finished = from.backups?.filter((b) => b.phase === 'Completed');
  const unfinished = from.backups?.filter((b) => b.phase !== 'Completed') ?? [];
  expect(after.backups?.filter((b) => finished?.some((f) => f.name === b.name)), 'no backup retaken or deleted').toEqual(finished);
  for (const backup of unfinished) expect(after.backups, 'a backup running before has its uid still').toEqual(expect.arrayContaining([expect.objectContaining({ name: backup.name, uid: backup.uid, trigger: 'Scheduled' })]));
  for (const backup of added) expect(backup, 'a backup taken since the upgrade is a scheduled one that came due').toMatchObject({ trigger: 'Scheduled' });
  expect(after.storedFiles ?? [], 'every stored backup file kept').toEqual(expect.arrayContaining(from.storedFiles ?? []));
  expect(after.dbPods, 'the database pod kept (a new one would be restored)').toEqual(from.dbPods);
  expect(after.restored, 'no restore').toEqual(from.restored);
  expect(after.maintenance, 'no traffic switch').toEqual(from.maintenance);
  const events = await eventsOtherThan(eventsBefore);
  say(`events since: ${JSON.stringify(events.map((e) => `${e.type ?? ''} ${e.reason ?? ''} ${e.regarding?.kind ?? ''}/${e.regarding?.name ?? ''}: ${e.note ?? ''}`))}`);
  const ofAdded = (e: EventItem): boolean => added.some((b) => e.regarding?.name === b.name || (e.note ?? '').includes(b.name));
  expect(events.filter((e) => e.type === 'Warning' || (/Restor|Maintenance(Enabled|Disabled)|Backup(Started|Completed)|Created|Deleted/.test(e.reason ?? '') && !ofAdded(e))),
    'no warning, restore, switch, backup (but a scheduled one that came due) or VM create').toEqual([]);
  for (const operator of operators) expect(await operatorErrors(operator), `${operator} logged no error`).toEqual([]);
}

describe.skipIf(!engine).each(WAYS)('upgrade from the base commit with $name', (way) => {
  beforeAll(async () => {
    let started = Date.now();
    const tag = await buildBaseImages();
    say(`base images ${tag} ready in ${seconds(started)}`);
    started = Date.now();
    before = undefined;
    operators = way.operators;
    [cluster, prism] = await Promise.all([openE2eCluster(), startPrismSimulator({ tls: true, host: '127.0.0.1', tlsHostnames: ['127.0.0.1'] })]);
    cleanups.push(() => cluster.close(), () => prism.stop());
    await installBase(tag, way.base);
    for (const operator of operators) await expectRunning(operator, tag);
    await cluster.freshNamespace(NS);
    say(`base install of ${tag} running in ${seconds(started)}`);
  }, 1_800_000);

  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  test('objects of every kind converge under the base commit', async () => {
    diagnoseOnFailure();
    const started = Date.now();
    const earlier = await eventUids();
    // The base commit's own samples, as its users applied them.
    const samples: Record<Operator, string> = {
      'maintpage-operator': 'maintpage-operator/samples/maintpage_v1alpha1_maintpage.yaml',
      'postgresql-operator': 'postgresql-operator/samples/db-for-foo.yaml',
      'nutanix-ahvvm-operator': 'nutanix-ahvvm-operator/samples/ahvvm-from-operator.yaml',
    };
    for (const operator of operators) await kubectlOk(['-n', NS, 'apply', '-f', join(base.deploy, samples[operator])]);
    if (has('maintpage-operator')) {
      await kubectlOk(['-n', NS, 'patch', 'maintpage', 'example', '--type=merge', '-p', JSON.stringify({ spec: { maintpageconfig: { maintpagetoggle: true } } })]);
      await kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Published', 'maintpage/example', '--timeout=180s']);
      const maintenancePods = (await podsOf('maintpage.example.com/role=maintenance,maintpage.example.com/instance=example')).length;
      await waitFor(async () => (await readyEndpoints('httpd')).length === maintenancePods && maintenancePods > 0, { what: 'the httpd Service to send traffic to the maintenance pods only', timeoutMs: 120_000 });
    }
    if (has('nutanix-ahvvm-operator')) await kubectlOk(['-n', NS, 'wait', '--for=condition=Ready', 'ahvvm/ahvvm-from-operator', '--timeout=180s']);
    if (has('postgresql-operator')) {
      await kubectlOk(['-n', NS, 'wait', '--for=condition=Ready', 'postgresql/foodb', '--timeout=180s']);
      await kubectlOk(['-n', NS, 'apply', '-f', '-'], JSON.stringify({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: 'foodb-before-upgrade' }, spec: { postgresql: 'foodb', trigger: 'OnDemand' } }));
      await kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Completed', 'postgresqlbackup/foodb-before-upgrade', '--timeout=180s']);
    }
    before = await snapshot();
    say(`base objects converged in ${seconds(started)}: ${JSON.stringify(before)}`);
    if (has('nutanix-ahvvm-operator')) expect(before.vm).toMatchObject({ uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown, vmsInPrism: 1 });
    if (has('postgresql-operator')) {
      // The sample's schedule (every 5 minutes) may have come due since foodb was made: such a backup is Scheduled.
      expect(before.backups).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'foodb-before-upgrade', phase: 'Completed' })]));
      for (const backup of before.backups ?? []) {
        if (backup.name !== 'foodb-before-upgrade') expect(backup, 'any other backup is a scheduled one that came due').toMatchObject({ trigger: 'Scheduled' });
      }
      expect(before.storedFiles?.length).toBeGreaterThan(0);
      expect(before.dbPods).toHaveLength(1);
    }
    if (has('maintpage-operator')) expect(before.maintenance?.status).toBe('Published');
    // The Events the upgrade test reads say what the base operators did, so an empty list after the upgrade means something.
    // Operators write Events after the status they tell of, from a queue (as client-go's recorder does): a status seen
    // does not mean its Event is written yet.
    const reasons = [...(has('maintpage-operator') ? ['MaintenanceEnabled'] : []), ...(has('postgresql-operator') ? ['BackupCompleted'] : []), ...(has('nutanix-ahvvm-operator') ? ['Created'] : [])];
    let seen: (string | undefined)[] = [];
    await waitFor(async () => { seen = (await eventsOtherThan(earlier)).map((e) => e.reason); return reasons.every((r) => seen.includes(r)); }, { what: `Events ${reasons.join(', ')} from the base operators`, timeoutMs: 60_000, intervalMs: 1_000 })
      .catch((error: unknown) => { throw new Error(`${String(error)}; Events seen: ${JSON.stringify(seen)}`); });
  }, 600_000);

  test('the new version runs, every object converges under it, nothing is redone or lost', async () => {
    diagnoseOnFailure();
    if (before === undefined) throw new Error('the base objects did not converge (the test before failed)');
    const started = Date.now();
    const eventsBefore = await eventUids();
    await way.upgrade(join(await findProvisionedTool('control-plane'), 'kubectl'));
    await waitForVersion(NEW_TAG);
    // The backup's status is the old operator's; the new one must read it as Completed, not take it again.
    if (has('postgresql-operator')) await waitFor(async () => (await inNs('postgresqlbackup/foodb-before-upgrade')).status?.phase === 'Completed', { what: 'the backup still Completed', timeoutMs: 60_000 });
    // Each controller of the new version has reconciled (a status written by the base version would pass the waits
    // above unread), and none failed.
    const access = await prepareScrapeAccess(cluster, 'upgrade-monitoring', operators);
    metricsToken = (await readFile(access.prometheusToken, 'utf8')).trim();
    await access.remove();
    const counts: Partial<Record<Operator, Record<string, number>>> = {};
    for (const operator of operators) {
      let seen: Record<string, number> = {};
      const reconciled = (controller: string): boolean => ['success', 'requeue', 'requeue_after'].some((r) => (seen[`${controller} ${r}`] ?? 0) > 0);
      await waitFor(async () => { seen = await reconciles(operator); return CONTROLLERS[operator].every(reconciled); }, { what: `every controller of the new ${operator} to have reconciled`, timeoutMs: 120_000, intervalMs: 1_000 })
        .catch((error: unknown) => { throw new Error(`${String(error)}; its reconciles: ${JSON.stringify(seen)}`); });
      counts[operator] = seen;
      expect(Object.entries(seen).filter(([key, n]) => key.endsWith(' errors') && n > 0), `${operator}: no reconcile error`).toEqual([]);
    }
    say(`objects converged under the new version ${seconds(started)} after the upgrade began; reconciles: ${JSON.stringify(counts)}`);
    await expectNothingRedone(before, eventsBefore);
  }, 900_000);

  // Only a way with a rollback to the base images has this test (defined, not skipped, for the others).
  const { rollback } = way;
  if (rollback !== undefined) test('rolled back to the base images: the base version runs again, nothing is redone or lost', async () => {
    diagnoseOnFailure();
    if (before === undefined) throw new Error('the base objects did not converge (the test before failed)');
    const started = Date.now();
    const eventsBefore = await eventUids();
    await rollback();
    // The base images' tag, as the chart was installed with (upgrade-base-<short sha>).
    const tag = (await operatorImages(operators[0] ?? 'maintpage-operator'))[0]?.split(':').pop() ?? '';
    expect(tag).toMatch(/^upgrade-base-/);
    await waitForVersion(tag);
    say(`rolled back to ${tag}, objects converged, in ${seconds(started)}`);
    await expectNothingRedone(before, eventsBefore);
  }, 900_000);
});
