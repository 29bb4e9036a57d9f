import { desiredVmSpec, namesToResolve, type DesiredVmResult, type ResolveEntityName } from '../desired/desired-vm.ts';
import type { AhvVmScope } from './ahvvm-scope.ts';
import type { EntityNameCache } from './entity-name-cache.ts';
import type { ConnectedPrism } from './reconcile-phase.ts';

/**
 * The VM the scope's AhvVm asks for, with the clusters, images, subnets and storage containers it names and its image
 * lookups looked up in Prism, through the API the connection speaks. The cluster comes first: subnets named in the
 * spec are then those a VM on it can use (an overlay subnet, or a VLAN subnet on that cluster, as CAPX resolves them)
 * and storage containers that cluster's (CAPX's `GetStorageContainerInCluster`), so one VLAN or container name on two
 * clusters is not ambiguous.
 */
export async function resolveDesiredVm(scope: AhvVmScope, prism: ConnectedPrism, names: EntityNameCache | undefined): Promise<DesiredVmResult> {
  const { spec } = scope;
  const { defaultCluster } = prism;
  const toResolve = namesToResolve(spec, defaultCluster);
  let resolveName: ResolveEntityName = () => [];
  let subnetsOnCluster: string | undefined;
  if (toResolve.length > 0 && names !== undefined) {
    const clusters = await names.resolverFor(toResolve.filter(({ kind }) => kind === 'cluster'));
    const cluster = spec.cluster ?? defaultCluster;
    const clusterUuids = cluster.uuid !== undefined ? [cluster.uuid] : cluster.name !== undefined ? clusters('cluster', cluster.name) : [];
    subnetsOnCluster = clusterUuids.length === 1 ? clusterUuids[0] : undefined;
    const others = await names.resolverFor(
      toResolve.filter(({ kind }) => kind !== 'cluster'),
      subnetsOnCluster === undefined ? {} : { clusterUuid: subnetsOnCluster },
    );
    resolveName = (kind, name) => (kind === 'cluster' ? clusters(kind, name) : others(kind, name));
  }
  return desiredVmSpec({ metadata: scope.avm.metadata, spec }, { defaultCluster, resolveName, ...(subnetsOnCluster === undefined ? {} : { subnetsOnCluster }) });
}
