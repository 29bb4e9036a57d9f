import { describe, expect, it } from 'vitest';
import { OWNER_UID, observedVm } from '../../test/prism-vm-fixture.ts';
import { findOwnedVm } from './find-owned-vm.ts';
import { descriptionWithOwnerMarker } from '../desired/ownership-marker.ts';

const NAME = 'ahvvm-from-operator';
const ours = (uuid: string, state = 'COMPLETE') => observedVm({ uuid, state, description: descriptionWithOwnerMarker('web', OWNER_UID) });
const namesake = (uuid: string, description = 'made by hand') => observedVm({ uuid, description });

describe('findOwnedVm', () => {
  it('finds none when Prism has no VM of that name', () => {
    expect(findOwnedVm([], OWNER_UID, NAME)).toEqual({ kind: 'none' });
  });

  it('finds the one VM carrying the resource\'s marker, next to namesakes made by others', () => {
    const vm = ours('00000000-0000-4000-8000-000000000001');
    const result = findOwnedVm([namesake('00000000-0000-4000-8000-000000000002'), vm], OWNER_UID, NAME);
    expect(result).toEqual({ kind: 'found', vm });
  });

  it('refuses to pick between several VMs that carry the marker', () => {
    const result = findOwnedVm([ours('00000000-0000-4000-8000-000000000001'), ours('00000000-0000-4000-8000-000000000002')], OWNER_UID, NAME);
    expect(result).toMatchObject({
      kind: 'ambiguous',
      reason: 'DuplicateOwnedVms',
      uuids: ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'],
    });
  });

  it('will not create a namesake of VMs it does not own (the seed\'s, hand-made, another namespace\'s)', () => {
    const otherOwner = namesake('00000000-0000-4000-8000-000000000003', descriptionWithOwnerMarker(undefined, 'another-uid'));
    const result = findOwnedVm([namesake('00000000-0000-4000-8000-000000000002', ''), otherOwner], OWNER_UID, NAME);
    expect(result).toMatchObject({ kind: 'ambiguous', reason: 'NameInUse', uuids: ['00000000-0000-4000-8000-000000000002', otherOwner.uuid] });
    if (result.kind === 'ambiguous') expect(result.message).toContain(`2 VMs named "${NAME}" not owned by this resource`);
  });

  it('checks the exact name again, whatever the list filter matched', () => {
    const lookalike = observedVm({ name: `${NAME}-2`, description: descriptionWithOwnerMarker(undefined, OWNER_UID) });
    expect(findOwnedVm([lookalike], OWNER_UID, NAME)).toEqual({ kind: 'none' });
  });

  it('ignores VMs that are being deleted', () => {
    const leaving = ours('00000000-0000-4000-8000-000000000001', 'DELETE_PENDING');
    const staying = ours('00000000-0000-4000-8000-000000000002');
    expect(findOwnedVm([leaving, staying], OWNER_UID, NAME)).toEqual({ kind: 'found', vm: staying });
    expect(findOwnedVm([leaving], OWNER_UID, NAME)).toEqual({ kind: 'none' });
  });
});
