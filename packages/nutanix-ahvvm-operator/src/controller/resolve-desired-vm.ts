import type { AhvVm } from '../api/ahvvm-resource.ts';
import { desiredVmSpec, namesToResolve, type DesiredVmResult } from '../desired/desired-vm.ts';
import type { EntityNameCache } from './entity-name-cache.ts';
import type { ConnectedPrism } from './reconcile-phase.ts';

/** The VM `avm` asks for, with the clusters, images and subnets it names looked up in Prism. */
export async function resolveDesiredVm(avm: AhvVm, prism: ConnectedPrism, names: EntityNameCache | undefined): Promise<DesiredVmResult> {
  const { spec } = avm;
  const toResolve = namesToResolve(spec, prism.defaultCluster);
  const resolveName = toResolve.length === 0 || names === undefined ? () => [] : await names.resolverFor(toResolve);
  return desiredVmSpec({ metadata: avm.metadata, spec }, { defaultCluster: prism.defaultCluster, resolveName });
}
