import { expect, test } from 'vitest';
import { PrismAccessGate } from './prism-access-gate.ts';

const refusal = { reason: 'AuthenticationFailed', message: 'refused' };

test('closes after a refusal, lets one probe through when the delay has passed, and doubles the delay on another', () => {
  let now = 0;
  const gate = new PrismAccessGate({ initialDelayMs: 10_000, maxDelayMs: 25_000, probeWaitMs: 2_000, now: () => now });
  const first = gate.admit();
  expect(first).toEqual({ kind: 'open' });
  gate.release(first, 'refused', refusal);
  expect(gate.admit()).toEqual({ kind: 'closed', ...refusal, retryInMs: 10_000 });
  expect(gate.closedForMs()).toBe(10_000);

  now = 10_000;
  const probe = gate.admit();
  expect(probe).toEqual({ kind: 'probe' });
  expect(gate.admit()).toEqual({ kind: 'closed', ...refusal, retryInMs: 2_000 });
  gate.release(probe, 'refused', refusal);
  expect(gate.admit()).toMatchObject({ kind: 'closed', retryInMs: 20_000 });

  now = 30_000;
  const second = gate.admit();
  gate.release(second, 'refused', refusal);
  expect(gate.admit()).toMatchObject({ kind: 'closed', retryInMs: 25_000 });

  now = 55_000;
  gate.release(gate.admit(), 'granted');
  expect(gate.admit()).toEqual({ kind: 'open' });
});

test('refusals of reconciles admitted together count once, and an inconclusive probe lets the next one try', () => {
  let now = 0;
  const gate = new PrismAccessGate({ initialDelayMs: 10_000, now: () => now });
  const a = gate.admit();
  const b = gate.admit();
  gate.release(a, 'refused', refusal);
  gate.release(b, 'refused', refusal);
  expect(gate.admit()).toMatchObject({ kind: 'closed', retryInMs: 10_000 });

  now = 10_000;
  gate.release(gate.admit(), 'inconclusive');
  expect(gate.admit()).toEqual({ kind: 'probe' });
});
