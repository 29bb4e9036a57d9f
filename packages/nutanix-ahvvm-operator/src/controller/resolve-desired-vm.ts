import { desiredVmSpec, namesToResolve, type DesiredVmResult } from '../desired/desired-vm.ts';
import type { AhvVmScope } from './ahvvm-scope.ts';
import type { EntityNameCache } from './entity-name-cache.ts';
import type { ConnectedPrism } from './reconcile-phase.ts';

/** The VM the scope's AhvVm asks for, with the clusters, images and subnets it names looked up in Prism. */
export async function resolveDesiredVm(scope: AhvVmScope, prism: ConnectedPrism, names: EntityNameCache | undefined): Promise<DesiredVmResult> {
  const { spec } = scope;
  const toResolve = namesToResolve(spec, prism.defaultCluster);
  const resolveName = toResolve.length === 0 || names === undefined ? () => [] : await names.resolverFor(toResolve);
  return desiredVmSpec({ metadata: scope.avm.metadata, spec }, { defaultCluster: prism.defaultCluster, resolveName });
}
