import { ownerUidOf } from '../desired/ownership-marker.ts';
import type { ObservedVm } from '../vm/vm-model.ts';

/**
 * Which listed VM belongs to an AhvVm, when its UUID is not known (names are not unique in Prism, and
 * a lookup by name that guesses is how duplicate VMs are made). Only a VM named exactly like the resource and carrying
 * its UID in the ownership marker counts as found. Anything else that would make creating a VM a guess is
 * `ambiguous`, and the caller must not create one:
 *
 * - `DuplicateOwnedVms`: several VMs carry the marker (made by hand, or by a bug); a human picks one;
 * - `NameInUse`: none carries it but VMs with the name exist (made by hand, by the seed's operator, or for an AhvVm of
 *   the same name in another namespace); creating another would make the name ambiguous for everyone.
 *
 * VMs already being deleted are ignored: they are going away whoever owns them.
 */
export type OwnedVmLookup =
  | { kind: 'found'; vm: ObservedVm }
  | { kind: 'none' }
  | { kind: 'ambiguous'; reason: 'DuplicateOwnedVms' | 'NameInUse'; message: string; uuids: string[] };

export function findOwnedVm(listed: readonly ObservedVm[], resourceUid: string, name: string): OwnedVmLookup {
  const namesakes = listed.filter((vm) => vm.name === name && vm.state !== 'DELETE_PENDING');
  const owned = namesakes.filter((vm) => ownerUidOf(vm.description) === resourceUid);
  const [only, ...more] = owned;
  if (only !== undefined && more.length === 0) return { kind: 'found', vm: only };
  if (owned.length > 1) {
    const uuids = owned.map((vm) => vm.uuid);
    return {
      kind: 'ambiguous',
      reason: 'DuplicateOwnedVms',
      message:
        `${owned.length} VMs named ${JSON.stringify(name)} carry this resource's ownership marker (${uuids.join(', ')}); ` +
        'delete the extra ones in Prism Central',
      uuids,
    };
  }
  if (namesakes.length > 0) {
    const uuids = namesakes.map((vm) => vm.uuid);
    return {
      kind: 'ambiguous',
      reason: 'NameInUse',
      message:
        `Prism Central already has ${namesakes.length === 1 ? 'a VM' : `${namesakes.length} VMs`} named ` +
        `${JSON.stringify(name)} not owned by this resource (${uuids.join(', ')}); rename or remove ` +
        `${namesakes.length === 1 ? 'it' : 'them'}, or give this AhvVm another name`,
      uuids,
    };
  }
  return { kind: 'none' };
}
