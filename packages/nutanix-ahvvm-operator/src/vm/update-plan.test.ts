import { describe, expect, it } from 'vitest';
import { desiredVm, disk, observedVm } from '../../test/prism-vm-fixture.ts';
import { planUpdate, type UpdatePlan } from './update-plan.ts';

const SEED = { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 } as const;
const NO_CONSENT = { consentToPowerCycle: false };
const CONSENT = { consentToPowerCycle: true };

function steps(plan: UpdatePlan): string[] | string {
  return plan.kind === 'steps' ? plan.steps.map((s) => s.action) : plan.kind;
}

describe('planUpdate', () => {
  it('does nothing for a VM that is as asked', () => {
    expect(planUpdate(observedVm({ power: 'ON' }), desiredVm(SEED), NO_CONSENT)).toEqual({ kind: 'in-sync' });
  });

  it.each(['PENDING', 'RUNNING', 'DELETE_PENDING'])('waits while the VM is %s', (state) => {
    expect(planUpdate(observedVm({ state }), desiredVm({ ...SEED, num_sockets: 4 }), NO_CONSENT)).toMatchObject({
      kind: 'wait',
      reason: 'TaskInProgress',
    });
  });

  it('plans an update of a VM left in ERROR by a failed task, since a successful update clears it', () => {
    expect(steps(planUpdate(observedVm({ state: 'ERROR' }), desiredVm({ ...SEED, num_sockets: 4 }), NO_CONSENT))).toEqual(['apply-spec']);
  });

  describe('a running VM', () => {
    const on = observedVm({ power: 'ON' });

    it('applies live changes in one PUT without powering off', () => {
      const plan = planUpdate(on, desiredVm({ ...SEED, num_sockets: 4, memory_size_mib: 8192 }), NO_CONSENT);
      expect(plan).toMatchObject({ kind: 'steps', steps: [{ action: 'apply-spec' }], powerCycle: false });
    });

    it.each([
      ['fewer sockets', { num_sockets: 1 }, 'num_sockets 2 → 1'],
      ['less memory', { memory_size_mib: 1024 }, 'memory_size_mib 2048 → 1024'],
      ['vCPUs per socket', { num_vcpus_per_socket: 2 }, 'num_vcpus_per_socket 1 → 2'],
      ['boot type', { boot_type: 'UEFI' }, 'boot_type LEGACY → UEFI'],
    ] as const)('blocks %s without consent, saying what and how to allow it', (_what, change, described) => {
      const plan = planUpdate(on, desiredVm({ ...SEED, ...change }), NO_CONSENT);
      expect(plan.kind).toBe('blocked');
      if (plan.kind !== 'blocked') return;
      expect(plan.reason).toBe('PowerCycleRequired');
      expect(plan.message).toContain(described);
      expect(plan.message).toContain('spec.allow_power_cycle: true');
    });

    it('also holds back live changes that come with one needing a power cycle, and says so', () => {
      const plan = planUpdate(on, desiredVm({ ...SEED, num_sockets: 4, num_vcpus_per_socket: 2 }), NO_CONSENT);
      expect(plan).toMatchObject({ kind: 'blocked', reason: 'PowerCycleRequired' });
      if (plan.kind === 'blocked') expect(plan.message).toContain('(with num_sockets 2 → 4, which could be applied live)');
    });

    it('power-cycles with consent: off, one PUT, on', () => {
      const plan = planUpdate(on, desiredVm({ ...SEED, num_vcpus_per_socket: 2, num_sockets: 4 }), CONSENT);
      expect(plan).toMatchObject({ kind: 'steps', powerCycle: true });
      expect(steps(plan)).toEqual(['power-off', 'apply-spec', 'power-on']);
    });

    it('powers off without consent when the resource asks for OFF, and applies everything then', () => {
      const plan = planUpdate(on, desiredVm({ ...SEED, power_state: 'PoweredOff', num_vcpus_per_socket: 2 }), NO_CONSENT);
      expect(plan).toMatchObject({ kind: 'steps', powerCycle: false });
      expect(steps(plan)).toEqual(['power-off', 'apply-spec']);
    });

    it('just powers off when nothing else changed', () => {
      expect(steps(planUpdate(on, desiredVm({ ...SEED, power_state: 'PoweredOff' }), NO_CONSENT))).toEqual(['power-off']);
    });
  });

  describe('a stopped VM', () => {
    const off = observedVm({ power: 'OFF' });

    it('applies any change, leaving power alone when it is not managed', () => {
      const plan = planUpdate(off, desiredVm({ num_sockets: 1, num_vcpus_per_socket: 2, memory_size_mib: 1024 }), NO_CONSENT);
      expect(plan).toMatchObject({ kind: 'steps', powerCycle: false });
      expect(steps(plan)).toEqual(['apply-spec']);
    });

    it('applies changes before powering on', () => {
      expect(steps(planUpdate(off, desiredVm({ ...SEED, power_state: 'PoweredOn', num_vcpus_per_socket: 2 }), NO_CONSENT))).toEqual([
        'apply-spec',
        'power-on',
      ]);
      expect(steps(planUpdate(off, desiredVm({ ...SEED, power_state: 'PoweredOn' }), NO_CONSENT))).toEqual(['power-on']);
    });

    it('finishes a power cycle the operator began, even with nothing else left to change', () => {
      expect(steps(planUpdate(off, desiredVm(SEED), { ...NO_CONSENT, powerCycleInProgress: true }))).toEqual(['power-on']);
      expect(steps(planUpdate(off, desiredVm({ ...SEED, num_vcpus_per_socket: 2 }), { ...NO_CONSENT, powerCycleInProgress: true }))).toEqual([
        'apply-spec',
        'power-on',
      ]);
    });

    it('does not power on after an interrupted power cycle when the resource now asks for OFF', () => {
      expect(planUpdate(off, desiredVm({ ...SEED, power_state: 'PoweredOff' }), { ...NO_CONSENT, powerCycleInProgress: true })).toEqual({
        kind: 'in-sync',
      });
    });
  });

  it('blocks changes no update can make, consent or not, and lists why', () => {
    const vm = observedVm({ power: 'OFF', disks: [disk(0, 8192)] });
    const plan = planUpdate(vm, desiredVm({ ...SEED, num_sockets: 4, disks: [{ size_mib: 4096 }] }), CONSENT);
    expect(plan.kind).toBe('blocked');
    if (plan.kind !== 'blocked') return;
    expect(plan.reason).toBe('UnsupportedChange');
    expect(plan.message).toContain('disks[0].size_mib 8192 → 4096 (Prism cannot shrink a disk)');
  });
});
