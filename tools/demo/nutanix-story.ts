// The seed article's AhvVm story, against the Prism Central simulator: the VM created, resized live, deleted.
import { join } from 'node:path';
import { until, type DemoContext } from './demo-context.ts';
import { waitForCrdsEstablished } from '@k8s-operators/testkit';

const NS = 'demo-nutanix';

export interface PrismEndpoint {
  host: string;
  port: number;
  username: string;
  password: string;
  caPem: string;
  clusterName: string;
  clusterUuid: string;
}

interface InspectedVm { name: string; powerState?: string; numSockets: number; numVcpusPerSocket: number; memorySizeMib: number; phase: string }

async function vms(prism: PrismEndpoint): Promise<InspectedVm[]> {
  // The simulator's own inspection endpoint, outside the Prism API; its certificate is the demo's own CA.
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request({ host: prism.host, port: prism.port, path: '/__sim/inspect', ca: prism.caPem }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => { resolve((JSON.parse(body) as { vms: InspectedVm[] }).vms); });
    });
    req.on('error', reject);
    req.end();
  });
}

const describeVm = (vm: InspectedVm): string => `${vm.name}: ${String(vm.numSockets)} sockets × ${String(vm.numVcpusPerSocket)} vCPU, ${String(vm.memorySizeMib)} MiB, power ${vm.powerState ?? '-'}`;

export async function nutanixStory(ctx: DemoContext, repo: string, prism: PrismEndpoint): Promise<void> {
  await ctx.step('nutanix-ahvvm-operator: the prism-central Secret, then kubectl apply -k deploy/nutanix-ahvvm-operator', async () => {
    await ctx.kubectl(['create', 'namespace', 'nutanix-ahvvm-operator-system']).catch(() => '');
    await ctx.kubectl(['-n', 'nutanix-ahvvm-operator-system', 'create', 'secret', 'generic', 'prism-central',
      `--from-literal=PRISM_HOST=${prism.host}`, `--from-literal=PRISM_PORT=${String(prism.port)}`,
      `--from-literal=PRISM_USER=${prism.username}`, `--from-literal=PRISM_PASS=${prism.password}`,
      `--from-literal=PRISM_CLUSTERNAME=${prism.clusterName}`, `--from-literal=PRISM_CLUSTERUUID=${prism.clusterUuid}`,
      `--from-literal=PRISM_CA_CERT=${prism.caPem}`]).catch(() => '');
    await ctx.kubectl(['apply', '-k', join(repo, 'deploy/nutanix-ahvvm-operator')]);
    await waitForCrdsEstablished((args) => ctx.kubectl(args), ['ahvvms.nutanix.com']);
    await ctx.kubectl(['-n', 'nutanix-ahvvm-operator-system', 'rollout', 'status', 'deployment/nutanix-ahvvm-operator-controller-manager', '--timeout=180s']);
  });
  await ctx.step(`apply the seed article's AhvVm in namespace ${NS}`, async () => {
    await ctx.kubectl(['create', 'namespace', NS]).catch(() => '');
    await ctx.kubectl(['-n', NS, 'apply', '-f', join(repo, 'deploy/nutanix-ahvvm-operator/samples/ahvvm-from-operator.yaml')]);
    await ctx.kubectl(['-n', NS, 'wait', '--for=condition=Ready', 'ahvvm/ahvvm-from-operator', '--timeout=120s']);
    const vm = await until('the VM in Prism', async () => (await vms(prism)).find((v) => v.name === 'ahvvm-from-operator'));
    ctx.show(`Prism Central: ${describeVm(vm)}`);
  });
  await ctx.step('resize: memory_size_mib 2048 → 3072, applied live', async () => {
    await ctx.kubectl(['-n', NS, 'patch', 'ahvvm', 'ahvvm-from-operator', '--type=merge', '-p', '{"spec":{"memory_size_mib":3072}}']);
    const vm = await until('the new memory size', async () => (await vms(prism)).find((v) => v.name === 'ahvvm-from-operator' && v.memorySizeMib === 3072));
    ctx.show(`Prism Central: ${describeVm(vm)}`);
    ctx.show((await ctx.kubectl(['-n', NS, 'get', 'ahvvms'])).trimEnd().split('\n').join('\n    '));
  });
  await ctx.step('delete the AhvVm: the finalizer deletes the VM first', async () => {
    await ctx.kubectl(['-n', NS, 'delete', 'ahvvm', 'ahvvm-from-operator', '--timeout=120s']);
    await until('the VM to be gone', async () => ((await vms(prism)).some((v) => v.name === 'ahvvm-from-operator') ? undefined : true));
    ctx.show('Prism Central: no VM named ahvvm-from-operator');
  });
  ctx.summary.push({ story: 'nutanix', outcome: 'VM created → resized live → deleted with its resource (Prism simulator)' });
}
