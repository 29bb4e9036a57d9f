import { describe, expect, test } from 'vitest';
import { holdsLease } from './lease-holder.ts';

const POD = 'postgresql-operator-controller-manager-69dc95cdc9-swpt9';

describe('holdsLease', () => {
  test('the Pod named by a Lease renewed since its container started leads', () => {
    const leases = [{ spec: { holderIdentity: `${POD}_0b6f4c1e-2d1a-4c55-9a55-0f0e3f1b7c2d`, renewTime: '2026-11-30T01:02:03.123456Z' } }];
    expect(holdsLease(leases, POD, '2026-11-30T00:40:00Z')).toBe(true);
    expect(holdsLease(leases, 'postgresql-operator-controller-manager-69dc95cdc9-dxz2m', '2026-11-30T00:40:00Z')).toBe(false);
  });

  // SIGKILLed as leader, the container restarts in the same Pod while the Lease still names the dead process there.
  test('a container restarted after the Lease\'s last renewal does not lead, though the Lease names its Pod', () => {
    const leases = [{ spec: { holderIdentity: `${POD}_0b6f4c1e-2d1a-4c55-9a55-0f0e3f1b7c2d`, renewTime: '2026-11-30T01:02:03.123456Z' } }];
    expect(holdsLease(leases, POD, '2026-11-30T01:02:05Z')).toBe(false);
  });

  test('a Pod name that is a prefix of the holder\'s Pod, a released Lease or an unknown start time is no lead', () => {
    expect(holdsLease([{ spec: { holderIdentity: `${POD}x_uuid`, renewTime: '2026-11-30T01:02:03Z' } }], POD, '2026-11-30T00:00:00Z')).toBe(false);
    expect(holdsLease([{ spec: { holderIdentity: '', renewTime: '2026-11-30T01:02:03Z' } }], POD, '2026-11-30T00:00:00Z')).toBe(false);
    expect(holdsLease([{ spec: { holderIdentity: `${POD}_uuid`, renewTime: '2026-11-30T01:02:03Z' } }], POD, undefined)).toBe(false);
    expect(holdsLease([{}], POD, '2026-11-30T00:00:00Z')).toBe(false);
  });
});
