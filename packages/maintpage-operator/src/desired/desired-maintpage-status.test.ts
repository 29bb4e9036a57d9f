import { describe, expect, it } from 'vitest';
import { maintPageFixture, resolved } from '../../test/maintpage-fixture.ts';
import { invalidSpecOutcome, desiredMaintPageStatus, switchLatencySeconds } from './desired-maintpage-status.ts';
import { selectorFor } from './labels.ts';
import { decideSwitch } from './switch-decision.ts';

const first = new Date('2026-03-01T22:00:00.250Z');
const later = new Date('2026-03-01T22:05:00Z');
const appService = { spec: { selector: selectorFor('example', 'app') } };

describe('desiredMaintPageStatus', () => {
  it('writes the first status with the seed field, conditions, counts and generation', () => {
    const maintPage = maintPageFixture({ generation: 3 });
    const decision = decideSwitch(resolved(maintPage), { service: appService, appReadyReplicas: 1, maintenanceReadyReplicas: 1 }, first);
    const { status, changed } = desiredMaintPageStatus(maintPage, decision, first);
    expect(changed).toBe(true);
    expect(status).toEqual({
      maintpublishstatus: 'Not Published',
      observedGeneration: 3,
      appReadyReplicas: 1,
      maintenanceReadyReplicas: 1,
      conditions: [
        expect.objectContaining({ type: 'Ready', status: 'True', reason: 'ServingApp', lastTransitionTime: '2026-03-01T22:00:00Z', observedGeneration: 3 }),
        expect.objectContaining({ type: 'Published', status: 'False', reason: 'ServingApp' }),
        expect.objectContaining({ type: 'Progressing', status: 'False', reason: 'ServingApp' }),
      ],
    });
  });

  it('reports no change when nothing changed, so nothing is written', () => {
    const maintPage = maintPageFixture();
    const observed = { service: appService, appReadyReplicas: 1, maintenanceReadyReplicas: 1 };
    const { status } = desiredMaintPageStatus(maintPage, decideSwitch(resolved(maintPage), observed, first), first);
    const stored = maintPageFixture({ status: structuredClone(status) });
    const again = desiredMaintPageStatus(stored, decideSwitch(resolved(stored), observed, later), later);
    expect(again.changed).toBe(false);
    expect(again.status).toEqual(status);
  });

  it('sets lastSwitchTime on a switch and moves lastTransitionTime only for conditions whose status moved', () => {
    const maintPage = maintPageFixture({ maintpageconfig: { maintpagetoggle: true } });
    const waiting = decideSwitch(resolved(maintPage), { service: appService, appReadyReplicas: 1, maintenanceReadyReplicas: 0 }, first);
    const stored = maintPageFixture({ maintpageconfig: { maintpagetoggle: true }, status: desiredMaintPageStatus(maintPage, waiting, first).status });
    const switched = decideSwitch(resolved(stored), { service: appService, appReadyReplicas: 1, maintenanceReadyReplicas: 1 }, later);
    const { status, changed } = desiredMaintPageStatus(stored, switched, later);
    expect(changed).toBe(true);
    expect(status.maintpublishstatus).toBe('Published');
    expect(status.lastSwitchTime).toBe('2026-03-01T22:05:00Z');
    const transitions = Object.fromEntries((status.conditions ?? []).map((c) => [c.type, c.lastTransitionTime]));
    expect(transitions).toEqual({
      Ready: '2026-03-01T22:05:00Z', // False -> True
      Published: '2026-03-01T22:05:00Z', // False -> True
      Progressing: '2026-03-01T22:05:00Z', // True -> False
    });
  });

  it('keeps switchWantedTime from the reconcile that first saw the switch wanted until the Service has moved', () => {
    const on = { maintpageconfig: { maintpagetoggle: true } };
    const notReady = { service: appService, appReadyReplicas: 1, maintenanceReadyReplicas: 0 };
    const maintPage = maintPageFixture(on);
    const waiting = desiredMaintPageStatus(maintPage, decideSwitch(resolved(maintPage), notReady, first), first).status;
    expect(waiting.switchWantedTime).toBe('2026-03-01T22:00:00.250Z');

    // Any later reconcile, by this process or a new leader, reads the stored time and keeps it.
    const stored = maintPageFixture({ ...on, status: waiting });
    const stillWaiting = desiredMaintPageStatus(stored, decideSwitch(resolved(stored), notReady, later), later);
    expect(stillWaiting.status.switchWantedTime).toBe('2026-03-01T22:00:00.250Z');
    expect(stillWaiting.changed).toBe(false);

    expect(switchLatencySeconds(stored, later)).toBe(299.75);
    const switched = desiredMaintPageStatus(stored, decideSwitch(resolved(stored), { ...notReady, maintenanceReadyReplicas: 1 }, later), later);
    expect(switched.status).not.toHaveProperty('switchWantedTime');
  });

  it('times a switch made by the reconcile that first saw it wanted as 0 s, and a clock behind the stored time as 0 s', () => {
    expect(switchLatencySeconds(maintPageFixture(), later)).toBe(0);
    expect(switchLatencySeconds(maintPageFixture({ status: { switchWantedTime: '2026-03-01T22:06:00Z' } }), later)).toBe(0);
  });

  it('keeps conditions set by others, and the counts, publish status and wait an invalid-spec outcome does not know', () => {
    const maintPage = maintPageFixture({
      generation: 2,
      status: {
        maintpublishstatus: 'Published',
        appReadyReplicas: 1,
        maintenanceReadyReplicas: 1,
        lastSwitchTime: '2026-03-01T21:00:00Z',
        switchWantedTime: '2026-03-01T21:30:00.125Z',
        conditions: [{ type: 'Degraded', status: 'False', reason: 'AsExpected', message: '', lastTransitionTime: '2026-03-01T21:00:00Z' }],
      },
    });
    const { status } = desiredMaintPageStatus(maintPage, invalidSpecOutcome(maintPage, 'choose another appname'), later);
    expect(status).toMatchObject({
      maintpublishstatus: 'Published',
      appReadyReplicas: 1,
      maintenanceReadyReplicas: 1,
      lastSwitchTime: '2026-03-01T21:00:00Z',
      switchWantedTime: '2026-03-01T21:30:00.125Z',
      observedGeneration: 2,
    });
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Ready', 'False', 'InvalidSpec', 'choose another appname'],
      ['Degraded', 'False', 'AsExpected', ''],
      ['Progressing', 'False', 'InvalidSpec', 'choose another appname'],
    ]);
  });
});
