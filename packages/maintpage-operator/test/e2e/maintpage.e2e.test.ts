// End to end, with only a kubeconfig and kubectl: install with `kubectl apply -k deploy/maintpage-operator`, then
// drive MaintPages the way a user does and check what their users would see. Runs against testkit's local cluster
// (npm test) and against kind (kind/e2e.sh sets E2E_KUBECONFIG).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { describeOperatorChecks, openE2eCluster, REPOSITORY_ROOT, waitFor, waitForCrdsEstablished, type E2eCluster } from '@k8s-operators/testkit';

const NS = 'maintpage-e2e';
const OPERATOR_NS = 'maintpage-operator-system';
let cluster: E2eCluster;

interface Slice { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }
interface Condition { type: string; status: string; reason: string; message: string }

beforeAll(async () => {
  cluster = await openE2eCluster();
  await cluster.installer.install('maintpage-operator');
  await waitForCrdsEstablished((args) => cluster.kubectlOk(args), ['maintpages.maintpage.example.com']);
  await cluster.kubectlOk(['-n', OPERATOR_NS, 'rollout', 'status', 'deployment/maintpage-operator-controller-manager', '--timeout=180s']);
  await cluster.freshNamespace(NS);
}, 300_000);

afterAll(async () => {
  await cluster.close();
});

/** On failure, show what the person on call would look at first. */
function diagnoseOnFailure(): void {
  onTestFailed(async () => {
    const logs = await cluster.kubectl(['-n', OPERATOR_NS, 'logs', 'deployment/maintpage-operator-controller-manager', '--tail=60']);
    const events = await cluster.kubectl(['-n', NS, 'get', 'events', '--sort-by=.lastTimestamp']);
    const objects = await cluster.kubectl(['-n', NS, 'get', 'maintpages,deployments,pods,services,endpointslices', '-o', 'wide']);
    console.error(`--- operator logs\n${logs.stdout}${logs.stderr}\n--- events\n${events.stdout}\n--- objects\n${objects.stdout}`);
  });
}

const apply = (manifest: string): Promise<string> => cluster.kubectlOk(['-n', NS, 'apply', '-f', '-'], { input: manifest });
const jsonpath = async (resource: string, path: string): Promise<string> => cluster.kubectlOk(['-n', NS, 'get', resource, '-o', `jsonpath=${path}`]);
const toggle = (name: string, on: boolean): Promise<string> =>
  cluster.kubectlOk(['-n', NS, 'patch', 'maintpage', name, '--type=merge', '-p', JSON.stringify({ spec: { maintpageconfig: { maintpagetoggle: on } } })]);
const conditions = async (name: string): Promise<Condition[]> => JSON.parse((await jsonpath(`maintpage/${name}`, '{.status.conditions}')) || '[]') as Condition[];

/** The Ready addresses a client of the Service would be sent to. */
async function serviceAddresses(service: string): Promise<string[]> {
  const slices = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'endpointslices', '-l', `kubernetes.io/service-name=${service}`, '-o', 'json'])) as { items: Slice[] };
  return slices.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready).flatMap((e) => e.addresses).sort();
}

async function podAddresses(selector: string): Promise<string[]> {
  const ips = await cluster.kubectlOk(['-n', NS, 'get', 'pods', '-l', selector, '--field-selector=status.phase=Running', '-o', 'jsonpath={.items[*].status.podIP}']);
  return ips.split(' ').filter(Boolean).sort();
}

/** What every Ready endpoint of the Service answers; they must all agree. */
async function serviceAnswers(service: string, headers?: Record<string, string>): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  const addresses = await serviceAddresses(service);
  if (addresses.length === 0) throw new Error(`Service ${service} has no ready endpoints`);
  const answers = await Promise.all(addresses.map((a) => cluster.httpGet(a, 8080, '/', headers)));
  const first = answers[0];
  if (!first || answers.some((a) => a.status !== first.status || a.body !== first.body)) throw new Error('endpoints answer differently');
  return first;
}

test('the operator runs as installed: from its image', async () => {
  expect(await cluster.containerRuntimes(OPERATOR_NS, 'control-plane=controller-manager')).toEqual([cluster.imageRuntime]);
});

describe('the seed sample', () => {
  test('serves the app, switches to the maintenance page and back, and reverts a hand-made image change', async () => {
    diagnoseOnFailure();
    // The seed article's manifest, unchanged.
    await cluster.kubectlOk(['-n', NS, 'apply', '-f', join(REPOSITORY_ROOT, 'deploy/maintpage-operator/samples/maintpage_v1alpha1_maintpage.yaml')]);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=condition=Ready', 'maintpage/example', '--timeout=120s']);
    expect(await jsonpath('maintpage/example', '{.status.maintpublishstatus}')).toBe('Not Published');
    await waitFor(async () => (await serviceAddresses('httpd')).length > 0, { what: 'the httpd Service to have ready endpoints' });
    expect(await serviceAddresses('httpd')).toEqual(await podAddresses('maintpage.example.com/role=app,maintpage.example.com/instance=example'));
    expect((await serviceAnswers('httpd')).body).toBe('Production Page !\n');

    await toggle('example', true);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Published', 'maintpage/example', '--timeout=60s']);
    const maintenancePods = await podAddresses('maintpage.example.com/role=maintenance,maintpage.example.com/instance=example');
    await waitFor(async () => JSON.stringify(await serviceAddresses('httpd')) === JSON.stringify(maintenancePods), { what: 'the Service to point at the maintenance pods' });
    expect((await serviceAnswers('httpd')).body).toBe('Maintenance Page !\n');
    const switched = await cluster.kubectlOk(['-n', NS, 'get', 'events.events.k8s.io', '--field-selector=reason=MaintenanceEnabled', '-o', 'jsonpath={.items[*].regarding.name}']);
    expect(switched).toContain('example');

    await toggle('example', false);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Not Published', 'maintpage/example', '--timeout=60s']);
    await waitFor(async () => (await serviceAnswers('httpd')).body === 'Production Page !\n', { what: 'the production page to be back' });

    // As in the article: a hand-made image change is put back.
    await cluster.kubectlOk(['-n', NS, 'set', 'image', 'deployment/httpd', 'httpd=quay.io/daein/prodpage:notfound']);
    await waitFor(async () => (await jsonpath('deployment/httpd', '{.spec.template.spec.containers[?(@.name=="httpd")].image}')) === 'quay.io/daein/prodpage:latest', { what: 'the image to be reverted' });
    const reverted = await cluster.kubectlOk(['-n', NS, 'get', 'events.events.k8s.io', '--field-selector=reason=ImageReverted', '-o', 'jsonpath={.items[*].note}']);
    expect(reverted).toContain('quay.io/daein/prodpage:notfound');
  });
});

describe('the built-in maintenance page', () => {
  test('answers 503 with Retry-After, no-store, and JSON when asked', async () => {
    diagnoseOnFailure();
    await apply(`
apiVersion: maintpage.example.com/v1alpha1
kind: MaintPage
metadata: {name: shop}
spec:
  maintpageconfig: {maintpagetoggle: true, page: {message: "Back at 06:00 UTC.", retryAfterSeconds: 120}}
  appconfig: {appname: shop, appimage: quay.io/daein/prodpage:latest}
`);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Published', 'maintpage/shop', '--timeout=120s']);
    const html = await waitFor(async () => { const a = await serviceAnswers('shop'); return a.status === 503 ? a : undefined; }, { what: 'the page server to answer' });
    expect(html.headers['retry-after']).toBe('120');
    expect(html.headers['cache-control']).toBe('no-store');
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.body).toContain('Back at 06:00 UTC.');
    const json = await serviceAnswers('shop', { accept: 'application/json' });
    expect(json.status).toBe(503);
    expect(JSON.parse(json.body)).toMatchObject({ status: 503, message: 'Back at 06:00 UTC.', retryAfter: 120 });
  });
});

describe('safety', () => {
  test('a maintenance page that never gets Ready blocks the switch and says why', async () => {
    diagnoseOnFailure();
    await apply(`
apiVersion: maintpage.example.com/v1alpha1
kind: MaintPage
metadata: {name: blocked}
spec:
  maintpageconfig: {maintpagetoggle: false, maintpageimage: registry.invalid/nobody/never:1}
  appconfig: {appname: blocked, appimage: quay.io/daein/prodpage:latest}
`);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=condition=Ready', 'maintpage/blocked', '--timeout=120s']);
    const appPods = await podAddresses('maintpage.example.com/role=app,maintpage.example.com/instance=blocked');
    await toggle('blocked', true);
    const progressing = await waitFor(async () => (await conditions('blocked')).find((c) => c.type === 'Progressing' && c.status === 'True'), { what: 'Progressing=True' });
    expect(progressing.reason).toBe('WaitingForMaintenancePods');
    expect(await jsonpath('maintpage/blocked', '{.status.maintpublishstatus}')).toBe('Not Published');
    expect(await serviceAddresses('blocked')).toEqual(appPods);
    expect((await serviceAnswers('blocked')).body).toBe('Production Page !\n');
  });

  test('an appname taken by a Deployment the operator does not own gives Ready=False Conflict and the Deployment is untouched', async () => {
    diagnoseOnFailure();
    await cluster.kubectlOk(['-n', NS, 'create', 'deployment', 'taken', '--image=quay.io/daein/prodpage:v1']);
    await apply(`
apiVersion: maintpage.example.com/v1alpha1
kind: MaintPage
metadata: {name: collides}
spec:
  maintpageconfig: {maintpagetoggle: false, maintpageimage: quay.io/daein/maintpage:latest}
  appconfig: {appname: taken, appimage: quay.io/daein/prodpage:latest}
`);
    const ready = await waitFor(async () => (await conditions('collides')).find((c) => c.type === 'Ready' && c.status === 'False'), { what: 'Ready=False' });
    expect(ready.reason).toBe('Conflict');
    expect(ready.message).toContain('taken already exists and is not controlled by MaintPage');
    // Untouched: not adopted, no field written by the operator, the image as its owner set it.
    expect(await jsonpath('deployment/taken', '{.metadata.ownerReferences}')).toBe('');
    expect(await jsonpath('deployment/taken', '{.metadata.managedFields[*].manager}')).not.toContain('maintpage-operator');
    expect(await jsonpath('deployment/taken', '{.spec.template.spec.containers[0].image}')).toBe('quay.io/daein/prodpage:v1');
    expect(await cluster.kubectl(['-n', NS, 'get', 'service', 'taken'])).toMatchObject({ code: 1 });
  });

  test('bad input is refused by the API server with a message that says what to fix', async () => {
    const missing = await cluster.kubectl(['-n', NS, 'apply', '-f', '-'], { input: 'apiVersion: maintpage.example.com/v1alpha1\nkind: MaintPage\nmetadata: {name: bad}\nspec: {appconfig: {appimage: quay.io/daein/prodpage:latest}}\n' });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('spec.appconfig.appname: Required value');
    const image = await cluster.kubectl(['-n', NS, 'apply', '-f', '-'], { input: 'apiVersion: maintpage.example.com/v1alpha1\nkind: MaintPage\nmetadata: {name: bad}\nspec: {appconfig: {appname: bad, appimage: "Not An Image!"}}\n' });
    expect(image.code).not.toBe(0);
    expect(image.stderr).toContain('appimage must be a container image reference');
  });
});

describe('schedule', () => {
  test('a maintenance window turns the page on at its start and off at its end by itself', async () => {
    diagnoseOnFailure();
    // The window is written once the app and the maintenance page both serve: written with the MaintPage, a window
    // that opened and closed while a loaded machine (a kind node beside a cold build) was still starting the pods was
    // never served at all, and the spec could not tell that from a window the operator missed.
    await apply(`
apiVersion: maintpage.example.com/v1alpha1
kind: MaintPage
metadata: {name: window}
spec:
  maintpageconfig: {maintpageimage: quay.io/daein/maintpage:latest}
  appconfig: {appname: window, appimage: quay.io/daein/prodpage:latest}
`);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=condition=Ready', 'maintpage/window', '--timeout=120s']);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=condition=Available', 'deployment/window', 'deployment/window-maintpage', '--timeout=120s']);
    expect(await jsonpath('maintpage/window', '{.status.maintpublishstatus}')).toBe('Not Published');
    // Whole seconds, as a person writes them; 10 s out, 20 s long.
    const start = new Date(Math.ceil((Date.now() + 10_000) / 1000) * 1000);
    const end = new Date(start.getTime() + 20_000);
    const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d+Z$/, 'Z');
    await cluster.kubectlOk(['-n', NS, 'patch', 'maintpage/window', '--type=merge', '-p',
      JSON.stringify({ spec: { maintpageconfig: { schedule: { start: rfc3339(start), end: rfc3339(end) } } } })]);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Published', 'maintpage/window', '--timeout=60s']);
    expect(Date.now()).toBeGreaterThanOrEqual(start.getTime());
    expect((await serviceAnswers('window')).body).toBe('Maintenance Page !\n');
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Not Published', 'maintpage/window', '--timeout=60s']);
    expect(Date.now()).toBeGreaterThanOrEqual(end.getTime());
    await waitFor(async () => (await serviceAnswers('window')).body === 'Production Page !\n', { what: 'the app to be back after the window' });
  });
});

describe('owned objects follow the spec', () => {
  test('renaming appname moves the app to new objects and deletes the old ones', async () => {
    diagnoseOnFailure();
    await apply(`
apiVersion: maintpage.example.com/v1alpha1
kind: MaintPage
metadata: {name: renamed}
spec:
  maintpageconfig: {maintpageimage: quay.io/daein/maintpage:latest}
  appconfig: {appname: before, appimage: quay.io/daein/prodpage:latest}
`);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=condition=Ready', 'maintpage/renamed', '--timeout=120s']);
    await cluster.kubectlOk(['-n', NS, 'patch', 'maintpage', 'renamed', '--type=merge', '-p', '{"spec":{"appconfig":{"appname":"after"}}}']);
    // Until the new app pods are Ready the new Service shows the maintenance page rather than nothing.
    await waitFor(async () => (await serviceAnswers('after')).body === 'Production Page !\n', { what: 'the renamed app to be served' });
    await waitFor(async () => (await cluster.kubectl(['-n', NS, 'get', 'deployment/before', 'service/before'])).code !== 0, { what: 'the old Deployment and Service to be deleted' });
  });

  test('an inline page gets its own ConfigMap, served by the built-in page, and the ConfigMap goes when the page does', async () => {
    diagnoseOnFailure();
    await apply(`
apiVersion: maintpage.example.com/v1alpha1
kind: MaintPage
metadata: {name: custom}
spec:
  maintpageconfig: {maintpagetoggle: true, page: {html: "<h1>Upgrading the database, back at 06:00</h1>"}}
  appconfig: {appname: custom, appimage: quay.io/daein/prodpage:latest}
`);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Published', 'maintpage/custom', '--timeout=120s']);
    const page = await waitFor(async () => { const a = await serviceAnswers('custom'); return a.status === 503 ? a : undefined; }, { what: 'the custom page' });
    expect(page.body).toContain('Upgrading the database, back at 06:00');
    // The built-in page is the project's page server image (the seed sample brings its own page image).
    expect(await cluster.containerRuntimes(NS, 'maintpage.example.com/role=maintenance,maintpage.example.com/instance=custom')).toEqual([cluster.imageRuntime]);
    expect(await jsonpath('configmap/custom-maintpage-html', '{.metadata.ownerReferences[0].name}')).toBe('custom');
    await cluster.kubectlOk(['-n', NS, 'patch', 'maintpage', 'custom', '--type=json', '-p', '[{"op":"remove","path":"/spec/maintpageconfig/page"}]']);
    await waitFor(async () => (await cluster.kubectl(['-n', NS, 'get', 'configmap/custom-maintpage-html'])).code !== 0, { what: 'the page ConfigMap to be deleted' });
  });
});

describeOperatorChecks({
  cluster: () => cluster,
  operator: 'maintpage-operator',
  ownCounter: 'maintpage_switches_total',
  mayBeUnused: {
    'update maintpages/finalizers.maintpage.example.com': 'needed only where OwnerReferencesPermissionEnforcement admission is on (OpenShift); nothing is written to it',
    'patch events.events.k8s.io': 'repeats fold into an EventSeries by PATCH at most every 30 s; this run does not wait for one',
  },
});
