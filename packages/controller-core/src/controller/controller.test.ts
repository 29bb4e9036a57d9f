import { getEventListeners } from 'node:events';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../metrics/create-metrics.ts';
import { Controller } from './controller.ts';

describe('Controller', () => {
  it('leaves no listener on a finished reconcile’s signal, which would keep every reconcile in memory', async () => {
    const signals: AbortSignal[] = [];
    const controller = new Controller({
      name: 'signals',
      metrics: createMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
      reconciler: ({ signal }) => {
        signals.push(signal);
        return Promise.resolve(undefined);
      },
    });
    controller.start();
    controller.enqueue('ns/a', { event: 'Added' });
    controller.enqueue('ns/b', { event: 'Added' });
    await vi.waitFor(() => {
      expect(signals).toHaveLength(2);
    });
    // Waits for reconciles in flight to finish.
    await controller.stop(5_000);

    for (const signal of signals) expect(getEventListeners(signal, 'abort')).toEqual([]);
  });
});
