import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { maintPageFixture, resolved } from '../../test/maintpage-fixture.ts';
import { selectorFor, type Target } from './labels.ts';
import { WAITING_REQUEUE_MS, decideSwitch, type ObservedState } from './switch-decision.ts';

const now = new Date('2026-03-01T23:00:00Z');

function serviceSelecting(target: Target): V1Service {
  return { metadata: { name: 'httpd' }, spec: { selector: selectorFor('example', target) } };
}

function observed(service: V1Service | undefined, appReadyReplicas: number, maintenanceReadyReplicas: number): ObservedState {
  return { service, appReadyReplicas, maintenanceReadyReplicas };
}

const on = resolved(maintPageFixture({ maintpageconfig: { maintpagetoggle: true } }));
const off = resolved(maintPageFixture());

function conditionsOf(decision: ReturnType<typeof decideSwitch>): Record<string, [string, string]> {
  return Object.fromEntries(decision.conditions.map((c) => [c.type, [c.status, c.reason]]));
}

describe('decideSwitch', () => {
  it('serves the app while maintenance is off and an app pod is Ready', () => {
    const decision = decideSwitch(off, observed(serviceSelecting('app'), 1, 1), now);
    expect(decision).toMatchObject({
      maintenanceWanted: false,
      target: 'app',
      selector: selectorFor('example', 'app'),
      switched: undefined,
      publishStatus: 'Not Published',
      requeueAfterMs: undefined,
    });
    expect(conditionsOf(decision)).toEqual({
      Ready: ['True', 'ServingApp'],
      Published: ['False', 'ServingApp'],
      Progressing: ['False', 'ServingApp'],
    });
    expect(decision.conditions[0]?.message).toBe('The Service sends traffic to the app (1 Ready pod)');
  });

  it('switches to the maintenance page when the toggle is on and a maintenance pod is Ready', () => {
    const decision = decideSwitch(on, observed(serviceSelecting('app'), 2, 1), now);
    expect(decision).toMatchObject({
      maintenanceWanted: true,
      target: 'maintenance',
      selector: selectorFor('example', 'maintenance'),
      switched: {
        from: 'app',
        to: 'maintenance',
        reason: 'MaintenanceEnabled',
        message: 'The Service now sends traffic to the maintenance page: maintpagetoggle is true',
      },
      publishStatus: 'Published',
    });
    expect(conditionsOf(decision)).toEqual({
      Ready: ['True', 'ServingMaintenancePage'],
      Published: ['True', 'ServingMaintenancePage'],
      Progressing: ['False', 'ServingMaintenancePage'],
    });
  });

  it('keeps the app while no maintenance pod is Ready, says so, and asks to look again', () => {
    const decision = decideSwitch(on, observed(serviceSelecting('app'), 1, 0), now);
    expect(decision).toMatchObject({
      maintenanceWanted: true,
      target: 'app',
      selector: selectorFor('example', 'app'),
      switched: undefined,
      publishStatus: 'Not Published',
      requeueAfterMs: WAITING_REQUEUE_MS,
    });
    expect(conditionsOf(decision)).toEqual({
      Ready: ['False', 'WaitingForMaintenancePods'],
      Published: ['False', 'WaitingForMaintenancePods'],
      Progressing: ['True', 'WaitingForMaintenancePods'],
    });
    expect(decision.conditions[0]?.message).toBe(
      'Maintenance is on (maintpagetoggle is true), but no maintenance page pod is Ready yet ' +
        '(0 of 1 maintenance page pod Ready); the Service stays on the app until one is',
    );
  });

  it('switches back to the app when the toggle is off and an app pod is Ready', () => {
    const decision = decideSwitch(off, observed(serviceSelecting('maintenance'), 1, 1), now);
    expect(decision).toMatchObject({
      target: 'app',
      switched: { from: 'maintenance', to: 'app', reason: 'MaintenanceDisabled' },
      publishStatus: 'Not Published',
    });
    expect(conditionsOf(decision).Ready).toEqual(['True', 'ServingApp']);
  });

  it('keeps the maintenance page while no app pod is Ready', () => {
    const decision = decideSwitch(
      resolved(maintPageFixture({ appconfig: { replicas: 3 } })),
      observed(serviceSelecting('maintenance'), 0, 1),
      now,
    );
    expect(decision).toMatchObject({
      target: 'maintenance',
      switched: undefined,
      publishStatus: 'Published',
      requeueAfterMs: WAITING_REQUEUE_MS,
    });
    expect(conditionsOf(decision)).toEqual({
      Ready: ['False', 'WaitingForAppPods'],
      Published: ['True', 'ServingMaintenancePage'],
      Progressing: ['True', 'WaitingForAppPods'],
    });
    expect(decision.conditions[0]?.message).toBe(
      'Maintenance is off, but no app pod is Ready yet (0 of 3 app pods Ready); the Service stays on the ' +
        'maintenance page until one is',
    );
  });

  it('stays on the maintenance page without a new switch once it is there', () => {
    const decision = decideSwitch(on, observed(serviceSelecting('maintenance'), 1, 2), now);
    expect(decision).toMatchObject({ target: 'maintenance', switched: undefined, publishStatus: 'Published' });
    expect(decision.conditions[0]?.message).toBe(
      'The Service sends traffic to the maintenance page (2 Ready pods) because maintpagetoggle is true',
    );
  });

  it('does not flee to the maintenance page when the app it serves has no Ready pod', () => {
    const decision = decideSwitch(off, observed(serviceSelecting('app'), 0, 1), now);
    expect(decision).toMatchObject({ target: 'app', switched: undefined, requeueAfterMs: WAITING_REQUEUE_MS });
    expect(conditionsOf(decision).Ready).toEqual(['False', 'WaitingForAppPods']);
    expect(decision.conditions[0]?.message).toBe(
      'The Service selects the app pods, but none is Ready yet (0 of 1 app pod Ready)',
    );
  });

  describe('for a Service that does not exist yet or has a selector that is not ours', () => {
    const handEdited: V1Service = { metadata: { name: 'httpd' }, spec: { selector: { app: 'httpd' } } };

    it.each([
      ['no Service, nothing Ready: the wanted set', off, undefined, 0, 0, 'app'],
      ['no Service, nothing Ready, maintenance on: the wanted set', on, undefined, 0, 0, 'maintenance'],
      ['no Service, maintenance on but only the app Ready: the app', on, undefined, 1, 0, 'app'],
      ['no Service, maintenance on and Ready: the maintenance page', on, undefined, 1, 1, 'maintenance'],
      ['a hand-edited selector, app wanted and Ready: the app', off, handEdited, 1, 1, 'app'],
      ['a hand-edited selector, app wanted but only maintenance Ready: maintenance', off, handEdited, 0, 1, 'maintenance'],
    ] as const)('%s', (_what, maintPage, service, appReady, maintenanceReady, target) => {
      const decision = decideSwitch(maintPage, observed(service, appReady, maintenanceReady), now);
      expect(decision.target).toBe(target);
      expect(decision.selector).toEqual(selectorFor('example', target));
      // Creating the Service or undoing a hand edit is not a switch: no MaintenanceEnabled/Disabled event.
      expect(decision.switched).toBeUndefined();
    });
  });

  describe('with a schedule', () => {
    const window = { start: '2026-03-01T22:00:00Z', end: '2026-03-02T02:00:00Z' };
    const scheduled = resolved(maintPageFixture({ maintpageconfig: { schedule: window } }));

    it('turns maintenance on while the window is open, and asks to come back exactly at its end', () => {
      const decision = decideSwitch(scheduled, observed(serviceSelecting('app'), 1, 1), now);
      expect(decision).toMatchObject({
        maintenanceWanted: true,
        target: 'maintenance',
        switched: {
          reason: 'MaintenanceEnabled',
          message:
            'The Service now sends traffic to the maintenance page: the schedule window is open until 2026-03-02T02:00:00Z',
        },
        nextScheduleBoundary: new Date(window.end),
        requeueAfterMs: 3 * 3600_000,
      });
    });

    it('leaves the app alone before the window, and asks to come back exactly at its start', () => {
      const before = new Date('2026-03-01T21:59:00Z');
      const decision = decideSwitch(scheduled, observed(serviceSelecting('app'), 1, 1), before);
      expect(decision).toMatchObject({
        maintenanceWanted: false,
        target: 'app',
        nextScheduleBoundary: new Date(window.start),
        requeueAfterMs: 60_000,
      });
    });

    it('switches back at the end (exclusive) and has nothing left to wait for', () => {
      const decision = decideSwitch(scheduled, observed(serviceSelecting('maintenance'), 1, 1), new Date(window.end));
      expect(decision).toMatchObject({
        maintenanceWanted: false,
        target: 'app',
        switched: { reason: 'MaintenanceDisabled' },
        nextScheduleBoundary: undefined,
        requeueAfterMs: undefined,
      });
    });

    it('looks again at the boundary when it comes before the waiting interval', () => {
      const justBefore = new Date(new Date(window.end).getTime() - 2_000);
      const decision = decideSwitch(scheduled, observed(serviceSelecting('app'), 1, 0), justBefore);
      expect(decision.requeueAfterMs).toBe(2_000);
    });

    it('names both reasons when the toggle is on during the window', () => {
      const both = resolved(maintPageFixture({ maintpageconfig: { maintpagetoggle: true, schedule: { start: window.start } } }));
      const decision = decideSwitch(both, observed(serviceSelecting('maintenance'), 1, 1), now);
      expect(decision.conditions[0]?.message).toBe(
        'The Service sends traffic to the maintenance page (1 Ready pod) because maintpagetoggle is true and the ' +
          'schedule window is open',
      );
    });
  });

  it("stamps every condition with the MaintPage's generation", () => {
    const decision = decideSwitch(resolved(maintPageFixture({ generation: 7 })), observed(serviceSelecting('app'), 1, 1), now);
    expect(decision.conditions.map((c) => c.observedGeneration)).toEqual([7, 7, 7]);
  });
});
