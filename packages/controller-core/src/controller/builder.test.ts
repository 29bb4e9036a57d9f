import { pino } from 'pino';
import { Registry } from 'prom-client';
import { expect, it, vi } from 'vitest';
import { Resources } from '../client/resources.ts';
import { createMetrics } from '../metrics/create-metrics.ts';
import { ControllerBuilder, type ControllerHost } from './builder.ts';
import type { Controller } from './controller.ts';

function hostRegistering(registered: Controller[]): ControllerHost {
  return {
    // The builder only subscribes to its informers.
    informerFor: (() => ({ addEventHandler: () => undefined })) as unknown as ControllerHost['informerFor'],
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
