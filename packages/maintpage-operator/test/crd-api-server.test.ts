import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { TestCluster, waitFor } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { MaintPage } from '../src/api/maintpage-resource.ts';

/**
 * The committed CRD and samples against a real kube-apiserver, through the pinned kubectl, as a user applies them:
 * the seed article's manifest applies unchanged, and bad input is refused with a message that says what to fix.
 */

const DEPLOY = new URL('../../../deploy/maintpage-operator/', import.meta.url);
const NAMESPACE = 'maintpage-operator';

let cluster: TestCluster;

async function deployFile(path: string): Promise<string> {
  return readFile(fileURLToPath(new URL(path, DEPLOY)), 'utf8');
}

async function seedSample(): Promise<MaintPage> {
  return parse(await deployFile('samples/maintpage_v1alpha1_maintpage.yaml')) as MaintPage;
}

async function kubectlOk(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

beforeAll(async () => {
  cluster = await TestCluster.start({ node: false });
  await kubectlOk(['apply', '-f', fileURLToPath(new URL('crd/maintpage.example.com_maintpages.yaml', DEPLOY))]);
  await cluster.waitForCrdsEstablished(['maintpages.maintpage.example.com']);
  await kubectlOk(['create', 'namespace', NAMESPACE]);
  // Discovery can lag the Established condition by a moment.
  await waitFor(async () => (await cluster.kubectl(['get', 'maintpages', '-n', NAMESPACE])).code === 0, {
    what: 'the maintpages resource to be served',
  });
});

afterAll(async () => {
  await cluster.stop();
});

describe('the MaintPage CRD on a real API server', () => {
  it("accepts the seed article's sample unchanged and fills in the defaults", async () => {
    await kubectlOk(['apply', '-n', NAMESPACE, '-f', fileURLToPath(new URL('samples/maintpage_v1alpha1_maintpage.yaml', DEPLOY))]);
    const stored = JSON.parse(await kubectlOk(['get', 'maintpage', 'example', '-n', NAMESPACE, '-o', 'json'])) as MaintPage;
    expect(stored.spec).toEqual({
      maintpageconfig: {
        maintpagetoggle: false,
        maintpageimage: 'quay.io/daein/maintpage:latest',
        port: 8080,
        replicas: 1,
      },
      appconfig: {
        appname: 'httpd',
        appimage: 'quay.io/daein/prodpage:latest',
        port: 8080,
        replicas: 1,
        imageChangePolicy: 'Revert',
      },
    });
  });

  it('accepts the sample that uses the new fields', async () => {
    await kubectlOk([
      'apply',
      '-n',
      NAMESPACE,
      '-f',
      fileURLToPath(new URL('samples/maintpage_v1alpha1_maintpage_scheduled.yaml', DEPLOY)),
    ]);
    const stored = JSON.parse(await kubectlOk(['get', 'mp', 'shop', '-n', NAMESPACE, '-o', 'json'])) as MaintPage;
    expect(stored.spec.maintpageconfig?.page).toMatchObject({ retryAfterSeconds: 600 });
    expect(stored.spec.maintpageconfig?.schedule).toEqual({ start: '2030-03-01T22:00:00Z', end: '2030-03-02T02:00:00Z' });
  });

  it('shows Toggle, Published, Ready and Age in kubectl get, and takes the seed status through the status subresource', async () => {
    await kubectlOk([
      'patch', 'maintpage', 'example', '-n', NAMESPACE, '--subresource=status', '--type=merge', '-p',
      JSON.stringify({
        status: {
          maintpublishstatus: 'Published',
          conditions: [
            { type: 'Ready', status: 'True', reason: 'ServingMaintenancePage', message: '', lastTransitionTime: '2026-03-01T22:00:00Z' },
          ],
        },
      }),
    ]);
    const table = await kubectlOk(['get', 'maintpages', 'example', '-n', NAMESPACE]);
    const [header, row] = table.trim().split('\n').map((line) => line.trim().split(/\s{2,}/));
    expect(header).toEqual(['NAME', 'TOGGLE', 'PUBLISHED', 'READY', 'AGE']);
    expect(row?.slice(0, 4)).toEqual(['example', 'false', 'Published', 'True']);

    const refused = await cluster.kubectl([
      'patch', 'maintpage', 'example', '-n', NAMESPACE, '--subresource=status', '--type=merge', '-p',
      '{"status":{"maintpublishstatus":"Maybe"}}',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('supported values: "Published", "Not Published"');
  });

  it('is listed under the short name and categories', async () => {
    expect(await kubectlOk(['get', 'mp', '-n', NAMESPACE, '-o', 'name'])).toContain('maintpage.maintpage.example.com/example');
    expect(await kubectlOk(['get', 'maintpage', '-n', NAMESPACE, '-o', 'name'])).toContain('/shop');
    expect(await kubectlOk(['get', 'k8s-operators', '-n', NAMESPACE, '-o', 'name'])).toContain('/example');
  });

  describe('refuses bad input with a message that says what to fix', () => {
    type Change = (maintPage: MaintPage) => void;
    const cases: [string, Change, string][] = [
      [
        'a missing appname',
        (mp) => { delete (mp.spec.appconfig as Partial<MaintPage['spec']['appconfig']>).appname; },
        'spec.appconfig.appname: Required value',
      ],
      [
        'an appname that cannot name a Service',
        (mp) => { mp.spec.appconfig.appname = 'Web_1'; },
        "appname must be a DNS-1035 label because it names a Service: lowercase letters, digits and '-', starting " +
          'with a letter and ending with a letter or digit',
      ],
      [
        'an appname longer than 63 characters',
        (mp) => { mp.spec.appconfig.appname = 'a'.repeat(64); },
        'spec.appconfig.appname: Too long: may not be more than 63',
      ],
      [
        'a malformed appimage',
        (mp) => { mp.spec.appconfig.appimage = 'quay.io/Daein/prodpage:latest'; },
        'appimage must be a container image reference such as quay.io/daein/prodpage:latest',
      ],
      [
        'a malformed maintpageimage',
        (mp) => { mp.spec.maintpageconfig = { maintpageimage: 'maint page:latest' }; },
        'maintpageimage must be a container image reference such as quay.io/daein/maintpage:latest',
      ],
      [
        'a schedule that ends before it starts',
        (mp) => { mp.spec.maintpageconfig = { schedule: { start: '2026-03-02T02:00:00Z', end: '2026-03-01T22:00:00Z' } }; },
        'schedule.end must be after schedule.start',
      ],
      [
        'a schedule with neither start nor end',
        (mp) => { mp.spec.maintpageconfig = { schedule: {} }; },
        'schedule needs start, end or both',
      ],
      [
        'a schedule time without a zone',
        (mp) => { mp.spec.maintpageconfig = { schedule: { start: '2026-03-01T22:00:00', end: '2026-03-02T02:00:00Z' } }; },
        'schedule.start must be an RFC 3339 time with a time zone, such as 2026-03-01T22:00:00Z or 2026-03-02T07:00:00+09:00',
      ],
      [
        'page.html and page.htmlFrom together',
        (mp) => {
          mp.spec.maintpageconfig = { page: { html: '<p>x</p>', htmlFrom: { configMapKeyRef: { name: 'pages', key: 'shop.html' } } } };
        },
        'set page.html or page.htmlFrom, not both',
      ],
      [
        'page settings beside maintpageimage',
        (mp) => { mp.spec.maintpageconfig = { maintpageimage: 'quay.io/daein/maintpage:latest', page: { message: 'x' } }; },
        'page configures the built-in page server, which is only used when maintpageimage is not set: remove maintpageimage or page',
      ],
      [
        'an inline page over 64 KiB',
        (mp) => { mp.spec.maintpageconfig = { page: { html: 'x'.repeat(65_537) } }; },
        'spec.maintpageconfig.page.html: Too long: may not be more than 65536',
      ],
      [
        'an unknown imageChangePolicy',
        (mp) => { (mp.spec.appconfig as Record<string, unknown>).imageChangePolicy = 'Sometimes'; },
        'spec.appconfig.imageChangePolicy: Unsupported value: "Sometimes": supported values: "Revert", "Allow"',
      ],
      [
        'port 0',
        (mp) => { mp.spec.appconfig.port = 0; },
        'spec.appconfig.port: Invalid value: 0: spec.appconfig.port in body should be greater than or equal to 1',
      ],
    ];

    it.each(cases)('%s', async (_what, change, message) => {
      const maintPage = await seedSample();
      maintPage.metadata.name = 'bad';
      change(maintPage);
      const result = await cluster.kubectl(['create', '-n', NAMESPACE, '-f', '-'], { input: stringify(maintPage) });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(message);
      // One clear message per problem: a guarded rule does not add an evaluation error beside it.
      expect(result.stderr).not.toContain('evaluation error');
    });
  });
});
