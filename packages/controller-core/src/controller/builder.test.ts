import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { expect, it, vi } from 'vitest';
import { Resources } from '../client/resources.ts';
import type { InformerEventHandler } from '../informer/shared-informer.ts';
import { createMetrics } from '../metrics/create-metrics.ts';
import { LOW_PRIORITY } from '../queue/work-queue.ts';
import { ControllerBuilder, type ControllerHost, type ControllerSettings } from './builder.ts';
import type { Controller } from './controller.ts';

function hostRegistering(registered: Controller[]): ControllerHost {
  return {
    // The builder only subscribes to its informers.
    informerFor: (() => ({ addEventHandler: () => () => undefined })) as unknown as ControllerHost['informerFor'],
    metrics: createMetrics(new Registry()),
    logger: pino({ level: 'silent' }),
    register: (controller) => { registered.push(controller); },
  };
}

it('withOptions({ backoff }) is the back-off of the controller’s work queue', () => {
  const registered: Controller[] = [];
  const host = hostRegistering(registered);
  const controller = new ControllerBuilder(host, 'configmaps')
    .for(Resources.ConfigMap)
    .withOptions({ backoff: { baseDelayMs: 1_000, maxDelayMs: 300_000 } })
    .complete(() => Promise.resolve(undefined));

  expect(registered).toEqual([controller]);
  controller.queue.addRateLimited('ns/a');
  const [retry] = controller.queue.snapshot().delayed;
  // The first failure of the key: 1 s, not the default 5 ms.
  expect(retry?.readyInMs).toBeGreaterThan(900);
  controller.queue.shutDown();
});

it('withOptions({ requeueBackoffs }) declares the back-offs a reconciler names in { requeue: true, backoff }', async () => {
  vi.useFakeTimers();
  try {
    const controller = new ControllerBuilder(hostRegistering([]), 'configmaps')
      .for(Resources.ConfigMap)
      .withOptions({ requeueBackoffs: { external: { baseDelayMs: 1_000, maxDelayMs: 300_000 } } })
      .complete(() => Promise.resolve({ requeue: true, backoff: 'external' }));
    controller.start();
    controller.enqueue('ns/a', { event: 'Added' });
    await vi.advanceTimersByTimeAsync(0);
    expect(controller.queue.snapshot().delayed.map((d) => [d.key, d.readyInMs])).toEqual([['ns/a', 1_000]]);
    await controller.stop(1_000);
  } finally {
    vi.useRealTimers();
  }
});

/** Feeds one event of each kind to a controller built with `settings`; returns [key, priority, reasons] of each key queued. */
function queuedByEvent(settings: ControllerSettings): (string | number)[][] {
  let handler: InformerEventHandler<KubernetesObject> | undefined;
  const host: ControllerHost = {
    ...hostRegistering([]),
    informerFor: (() => ({ addEventHandler: (h: InformerEventHandler<KubernetesObject>) => { handler = h; return () => undefined; } })) as unknown as ControllerHost['informerFor'],
  };
  const controller = new ControllerBuilder(host, 'configmaps').for(Resources.ConfigMap).withOptions(settings).complete(() => Promise.resolve(undefined));
  // The handler joins when the controller starts; a worker may already hold the first key, so both lists are read.
  controller.start();
  const object = (name: string, resourceVersion: string): KubernetesObject => ({ metadata: { namespace: 'ns', name, resourceVersion } });
  handler?.onAdd?.(object('listed', '1'), { isInInitialList: true });
  handler?.onAdd?.(object('created', '2'), { isInInitialList: false });
  handler?.onUpdate?.(object('resynced', '3'), object('resynced', '3'));
  handler?.onUpdate?.(object('edited', '4'), object('edited', '5'));
  const queued = [...controller.queue.snapshot().queued, ...controller.queue.snapshot().processing]
    .map(({ key, priority, reasons }) => [key, priority, reasons.map((reason) => reason.event).join()]).sort();
  controller.queue.shutDown();
  return queued;
}

it('queues the initial list and resyncs (an update with the same resourceVersion) at low priority, real changes at 0', () => {
  expect(queuedByEvent({})).toEqual([
    ['ns/created', 0, 'Added'],
    ['ns/edited', 0, 'Updated'],
    ['ns/listed', LOW_PRIORITY, 'Added'],
    ['ns/resynced', LOW_PRIORITY, 'Resync'],
  ]);
});

it('withOptions({ usePriorityQueue: false }) queues every event at 0, as controller-runtime\'s UsePriorityQueue: false', () => {
  expect(queuedByEvent({ usePriorityQueue: false }).map(([key, priority]) => [key, priority])).toEqual([
    ['ns/created', 0], ['ns/edited', 0], ['ns/listed', 0], ['ns/resynced', 0],
  ]);
});
