// The maintenance page story of the seed article: the app, the switch to the maintenance page and back.
import { join } from 'node:path';
import { until, type DemoContext } from './demo-context.ts';
import { waitForCrdsEstablished } from '@k8s-operators/testkit';

const NS = 'demo-maintpage';

async function answer(ctx: DemoContext, service: string): Promise<{ address: string; status: number; body: string; retryAfter: string | null }> {
  const addresses = (await ctx.kubectl(['-n', NS, 'get', 'endpointslices', '-l', `kubernetes.io/service-name=${service}`, '-o', 'jsonpath={.items[*].endpoints[?(@.conditions.ready==true)].addresses[0]}'])).split(' ').filter(Boolean);
  const address = addresses[0];
  if (!address) throw new Error(`Service ${service} has no ready endpoint`);
  const response = await fetch(`http://${address}:8080/`, { signal: AbortSignal.timeout(5_000) });
  return { address, status: response.status, body: (await response.text()).trim().split('\n')[0] ?? '', retryAfter: response.headers.get('retry-after') };
}

export async function maintpageStory(ctx: DemoContext, repo: string): Promise<void> {
  await ctx.step('maintpage-operator: install with kubectl apply -k deploy/maintpage-operator', async () => {
    await ctx.kubectl(['apply', '-k', join(repo, 'deploy/maintpage-operator')]);
    await waitForCrdsEstablished((args) => ctx.kubectl(args), ['maintpages.maintpage.example.com']);
    await ctx.kubectl(['-n', 'maintpage-operator-system', 'rollout', 'status', 'deployment/maintpage-operator-controller-manager', '--timeout=180s']);
  });
  await ctx.step(`apply the seed article's MaintPage in namespace ${NS}`, async () => {
    await ctx.kubectl(['create', 'namespace', NS]).catch(() => '');
    await ctx.kubectl(['-n', NS, 'apply', '-f', join(repo, 'deploy/maintpage-operator/samples/maintpage_v1alpha1_maintpage.yaml')]);
    await ctx.kubectl(['-n', NS, 'wait', '--for=condition=Ready', 'maintpage/example', '--timeout=120s']);
    const served = await until('the app to answer', async () => { const a = await answer(ctx, 'httpd'); return a.body.includes('Production') ? a : undefined; });
    ctx.show(`GET http://${served.address}:8080/  →  ${served.status} "${served.body}"`);
  });
  await ctx.step('maintenance on: kubectl patch maintpage example maintpagetoggle=true', async () => {
    await ctx.kubectl(['-n', NS, 'patch', 'maintpage', 'example', '--type=merge', '-p', '{"spec":{"maintpageconfig":{"maintpagetoggle":true}}}']);
    await ctx.kubectl(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Published', 'maintpage/example', '--timeout=60s']);
    const served = await until('the maintenance page', async () => { const a = await answer(ctx, 'httpd'); return a.body.includes('Maintenance') ? a : undefined; });
    ctx.show(`GET http://${served.address}:8080/  →  ${served.status} "${served.body}"`);
  });
  await ctx.step('the built-in page server answers 503 with Retry-After', async () => {
    await ctx.kubectl(['-n', NS, 'apply', '-f', '-'], 'apiVersion: maintpage.example.com/v1alpha1\nkind: MaintPage\nmetadata: {name: shop}\nspec:\n  maintpageconfig: {maintpagetoggle: true, page: {message: "Back soon."}}\n  appconfig: {appname: shop, appimage: quay.io/daein/prodpage:latest}\n');
    await ctx.kubectl(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Published', 'maintpage/shop', '--timeout=120s']);
    const served = await until('a 503', async () => { const a = await answer(ctx, 'shop'); return a.status === 503 ? a : undefined; });
    ctx.show(`GET http://${served.address}:8080/  →  ${served.status}, Retry-After: ${served.retryAfter ?? '-'}`);
  });
  await ctx.step('maintenance off: back to the app', async () => {
    await ctx.kubectl(['-n', NS, 'patch', 'maintpage', 'example', '--type=merge', '-p', '{"spec":{"maintpageconfig":{"maintpagetoggle":false}}}']);
    await ctx.kubectl(['-n', NS, 'wait', '--for=jsonpath={.status.maintpublishstatus}=Not Published', 'maintpage/example', '--timeout=60s']);
    const served = await until('the app again', async () => { const a = await answer(ctx, 'httpd'); return a.body.includes('Production') ? a : undefined; });
    ctx.show(`GET http://${served.address}:8080/  →  ${served.status} "${served.body}"`);
    ctx.show((await ctx.kubectl(['-n', NS, 'get', 'maintpages'])).trimEnd().split('\n').join('\n    '));
  });
  ctx.summary.push({ story: 'maintpage', outcome: `app → maintenance page → app; built-in page answers 503 (kubectl -n ${NS} get mp)` });
}
