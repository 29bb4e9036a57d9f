// Creates the benchmark's Widgets, as a bulk import would: run by core.bench.ts as a child process, so the memory
// and CPU that creating them takes never count as the controller's.
//
//   node --conditions=source create-widgets.ts <kubeconfig> <namespace> <count> <in-flight>
import { KubeClient } from '@k8s-operators/controller-core';
import { WidgetRef } from './widget-ref.ts';
import { WidgetResource } from './widget-resource.ts';

const [kubeconfigPath = '', namespace = '', countArg = '', inFlightArg = ''] = process.argv.slice(2);
const count = Number(countArg);
const inFlight = Number(inFlightArg);
if (kubeconfigPath === '' || namespace === '' || !Number.isInteger(count) || !Number.isInteger(inFlight) || inFlight < 1) {
  console.error('usage: create-widgets.ts <kubeconfig> <namespace> <count> <in-flight>');
  process.exit(2);
}

const client = await KubeClient.load({ kubeconfig: kubeconfigPath, userAgent: 'core-bench-import' });
let next = 0;
const worker = async (): Promise<void> => {
  while (next < count) {
    const index = next++;
    await client.create(WidgetRef, {
      apiVersion: WidgetResource.apiVersion,
      kind: WidgetResource.kind,
      // Zero-padded, so names sort in creation order.
      metadata: { name: `widget-${String(index).padStart(5, '0')}`, namespace },
      spec: { size: index % 100, color: index % 2 === 0 ? 'blue' : 'green' },
    });
  }
};
await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
await client.close();
