import { pino } from 'pino';
import { Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { Resources } from '../client/resources.ts';
import { createMetrics } from '../metrics/create-metrics.ts';
import { ControllerBuilder, type ControllerHost } from './builder.ts';
import type { Controller } from './controller.ts';

it('withOptions({ backoff }) is the back-off of the controller’s work queue', () => {
  const registered: Controller[] = [];
  const host: ControllerHost = {
    // The builder only subscribes to its informers.
    informerFor: (() => ({ addEventHandler: () => undefined })) as unknown as ControllerHost['informerFor'],
    metrics: createMetrics(new Registry()),
    logger: pino({ level: 'silent' }),
    register: (controller) => { registered.push(controller); },
  };
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
