import { Gauge, Registry } from 'prom-client';
import { expect, test } from 'vitest';
import { VmStateGauge } from './ahvvm-metrics.ts';

test('counts resources by the state of their VM as it changes', async () => {
  const gauge = new Gauge({ name: 'ahvvm_vms', help: 'test', labelNames: ['state'] as const, registers: [new Registry()] });
  const states = new VmStateGauge(gauge);
  states.set('ns/a', 'Absent');
  states.set('ns/b', 'COMPLETE');
  states.set('ns/a', 'COMPLETE');
  states.set('ns/c', 'ERROR');
  states.delete('ns/c');
  states.delete('ns/unknown');
  const values: Record<string, number> = {};
  for (const { labels, value } of (await gauge.get()).values) values[String(labels.state)] = value;
  expect(values).toEqual({ Absent: 0, COMPLETE: 2, ERROR: 0 });
});
