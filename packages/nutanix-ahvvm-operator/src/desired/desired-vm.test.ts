import { describe, expect, it } from 'vitest';
import { CLUSTER_UUID, CONTEXT, EVERY_FIELD, IMAGE_UUID, OTHER_CLUSTER_UUID, OTHER_IMAGE_UUID, OWNER_UID, PROJECT_UUID, STORAGE_CONTAINER_UUID, SUBNET_UUID, avm } from '../../test/prism-vm-fixture.ts';
import type { AhvVmSpec } from '../api/ahvvm-resource.ts';
import {
  MAX_USER_DATA_BASE64_LENGTH,
  desiredVmSpec,
  namesToResolve,
  withCloudInitUserData,
  type DesiredVmFailureReason,
} from './desired-vm.ts';

describe('desiredVmSpec', () => {
  it('turns the seed sample into the VM the seed operator created, plus the ownership marker', () => {
    const result = desiredVmSpec(avm({ num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 }), CONTEXT);
    expect(result).toEqual({
      ok: true,
      vm: {
        name: 'ahvvm-from-operator',
        description: `nutanix.com/ahvvm-owner-uid: ${OWNER_UID}`,
        clusterUuid: CLUSTER_UUID,
        numSockets: 2,
        numVcpusPerSocket: 1,
        memoryMib: 2048,
      },
    });
  });

  it('fills in the seed operator\'s defaults for CPU and memory and manages nothing else', () => {
    const result = desiredVmSpec(avm({}), CONTEXT);
    expect(result.ok && result.vm).toEqual({ name: 'ahvvm-from-operator', description: `nutanix.com/ahvvm-owner-uid: ${OWNER_UID}`, clusterUuid: CLUSTER_UUID, numSockets: 1, numVcpusPerSocket: 1, memoryMib: 1024 });
  });

  it('maps every optional field, names resolved to UUIDs', () => {
    const result = desiredVmSpec(avm(EVERY_FIELD), CONTEXT);
    expect(result).toEqual({
      ok: true,
      vm: {
        name: 'ahvvm-from-operator',
        description: `web tier\nnutanix.com/ahvvm-owner-uid: ${OWNER_UID}`,
        clusterUuid: OTHER_CLUSTER_UUID,
        numSockets: 1,
        numVcpusPerSocket: 1,
        memoryMib: 1024,
        powerState: 'ON',
        bootType: 'UEFI',
        categories: { Environment: 'Production' },
        disks: [{ imageUuid: IMAGE_UUID, sizeMib: 20480 }, { sizeMib: 1024 }],
        nics: [{ subnetUuid: SUBNET_UUID }],
      },
    });
  });

  it('takes the newest image an image_lookup matches (CAPX v1.10.3 GetImageByLookup), and marks it as a lookup\'s', () => {
    const result = desiredVmSpec(avm({ disks: [{ image_lookup: { format: '^{{.BaseOS}}-', base_os: 'ubuntu-22.04' }, size_mib: 20480 }] }), CONTEXT);
    expect(result.ok && result.vm.disks).toEqual([{ imageUuid: OTHER_IMAGE_UUID, imageFromLookup: true, sizeMib: 20480 }]);
  });

  it('puts a disk on the storage container it names, by name or by uuid', () => {
    const result = desiredVmSpec(avm({ disks: [{ size_mib: 1024, storage_container: { name: 'fast' } }, { size_mib: 1024, storage_container: { uuid: STORAGE_CONTAINER_UUID.toUpperCase() } }] }), CONTEXT);
    expect(result.ok && result.vm.disks).toEqual([{ sizeMib: 1024, storageContainerUuid: STORAGE_CONTAINER_UUID }, { sizeMib: 1024, storageContainerUuid: STORAGE_CONTAINER_UUID }]);
  });

  it('puts the VM in the project it names, by name or by uuid, and says which project name Prism does not have', () => {
    expect(desiredVmSpec(avm({ project: { name: 'team-a' } }), CONTEXT)).toMatchObject({ ok: true, vm: { projectUuid: PROJECT_UUID } });
    expect(desiredVmSpec(avm({ project: { uuid: PROJECT_UUID.toUpperCase() } }), CONTEXT)).toMatchObject({ ok: true, vm: { projectUuid: PROJECT_UUID } });
    expect(desiredVmSpec(avm({ project: { name: 'team-b' } }), CONTEXT)).toEqual({
      ok: false,
      reason: 'ProjectNotFound',
      message: 'project: Prism Central has no project named "team-b"; correct the name (it is case-sensitive) or give the project\'s uuid',
    });
    expect(namesToResolve({ project: { name: 'team-a' } }, CONTEXT.defaultCluster)).toEqual([{ kind: 'project', name: 'team-a' }]);
  });

  it('maps PoweredOff to OFF', () => {
    const result = desiredVmSpec(avm({ power_state: 'PoweredOff' }), CONTEXT);
    expect(result.ok && result.vm.powerState).toBe('OFF');
  });

  it('resolves the default cluster by name when no UUID is configured', () => {
    const result = desiredVmSpec(avm({}), { ...CONTEXT, defaultCluster: { name: 'other' } });
    expect(result.ok && result.vm.clusterUuid).toBe(OTHER_CLUSTER_UUID);
  });

  // An image named twice is an error, as CAPX v1.10.3 controllers/helpers.go GetImage ("more than one image found with
  // name %s"); CAPX compares names with strings.EqualFold, the operator exactly, as it does every other name.
  it.each<[AhvVmSpec, DesiredVmFailureReason, string]>([
    [{ cluster: { name: 'missing' } }, 'ClusterNotFound', 'cluster: Prism Central has no Prism Element cluster named "missing"; correct the name (it is case-sensitive) or give the cluster\'s uuid'],
    [{ disks: [{ image: { name: 'missing' } }] }, 'ImageNotFound', 'disks[0].image: Prism Central has no image named "missing"'],
    [{ nics: [{ subnet: { name: 'missing' } }] }, 'SubnetNotFound', 'nics[0].subnet: Prism Central has no subnet named "missing"'],
    [{ disks: [{ image: { name: 'twice' } }] }, 'AmbiguousName', 'disks[0].image: 2 images are named "twice"'],
    [{ disks: [{ image: { name: 'twice' } }] }, 'AmbiguousName', '; name it by uuid instead'],
    [{ disks: [{ size_mib: 1, storage_container: { name: 'slow' } }] }, 'StorageContainerNotFound', 'disks[0].storage_container: Prism Central has no storage container named "slow"; correct the name (it is case-sensitive) or give the storage container\'s uuid'],
    [{ disks: [{ image_lookup: { format: '^debian-' } }] }, 'ImageNotFound', 'disks[0].image_lookup: Prism Central has no image whose name matches "^debian-"; upload one, or correct format or base_os'],
    [{ disks: [{ image_lookup: { format: '{{.BaseOS}}-' } }] }, 'InvalidImageLookup', 'disks[0].image_lookup: format uses {{.BaseOS}} but base_os is not set'],
  ])('reports an unresolvable name: %o', (spec, reason, message) => {
    const result = desiredVmSpec(avm(spec), CONTEXT);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toBe(reason);
      expect(result.message).toContain(message);
    }
  });

  it('names the environment variable when the default cluster name is unknown', () => {
    const result = desiredVmSpec(avm({}), { ...CONTEXT, defaultCluster: { name: 'gone' } });
    expect(result).toEqual({ ok: false, reason: 'ClusterNotFound', message: 'PRISM_CLUSTERNAME: Prism Central has no Prism Element cluster named "gone"; correct the name (it is case-sensitive) or give the cluster\'s uuid' });
  });

  it('says which cluster a subnet was looked up on, when it was', () => {
    const result = desiredVmSpec(avm({ nics: [{ subnet: { name: 'missing' } }] }), { ...CONTEXT, subnetsOnCluster: OTHER_CLUSTER_UUID });
    expect(result).toMatchObject({
      ok: false,
      reason: 'SubnetNotFound',
      message: `nics[0].subnet: Prism Central has no subnet named "missing" that a VM on cluster ${OTHER_CLUSTER_UUID} can use (an overlay subnet, or a VLAN subnet on that cluster); correct the name (it is case-sensitive) or give the subnet's uuid`,
    });
  });

  it('says which cluster a storage container was looked up on, when it was', () => {
    const result = desiredVmSpec(avm({ disks: [{ size_mib: 1, storage_container: { name: 'slow' } }] }), { ...CONTEXT, subnetsOnCluster: OTHER_CLUSTER_UUID });
    expect(result).toEqual({
      ok: false,
      reason: 'StorageContainerNotFound',
      message: `disks[0].storage_container: Prism Central has no storage container named "slow" on cluster ${OTHER_CLUSTER_UUID}; correct the name (it is case-sensitive) or give the storage container's uuid`,
    });
  });

  it('refuses a resource that was not read from the API server', () => {
    expect(() => desiredVmSpec({ metadata: { name: 'x' }, spec: avm().spec }, CONTEXT)).toThrow(/metadata.uid/);
  });
});

describe('namesToResolve', () => {
  it('lists the names the desired VM needs looked up, and nothing given by UUID', () => {
    expect(
      namesToResolve(
        { disks: [{ image: { name: 'ubuntu' } }, { image: { uuid: IMAGE_UUID } }, { size_mib: 10 }], nics: [{ subnet: { name: 'vlan173' } }] },
        { name: 'ncn-dev-sandbox' },
      ),
    ).toEqual([
      { kind: 'cluster', name: 'ncn-dev-sandbox' },
      { kind: 'image', name: 'ubuntu' },
      { kind: 'subnet', name: 'vlan173' },
    ]);
    expect(namesToResolve({ cluster: { uuid: CLUSTER_UUID } }, { name: 'ncn-dev-sandbox' })).toEqual([]);
  });

  it('lists image lookups by their rendered pattern and storage containers by name; a lookup that cannot render is not asked', () => {
    const disks = [
      { image_lookup: { format: '^{{.BaseOS}}-', base_os: 'rocky-9' }, storage_container: { name: 'fast' } },
      { image_lookup: { format: '{{.BaseOS}}' } },
      { size_mib: 1, storage_container: { uuid: STORAGE_CONTAINER_UUID } },
    ];
    expect(namesToResolve({ cluster: { uuid: CLUSTER_UUID }, disks }, {})).toEqual([
      { kind: 'image_lookup', name: '^rocky-9-' },
      { kind: 'storage_container', name: 'fast' },
    ]);
  });
});

describe('withCloudInitUserData', () => {
  const base = desiredVmSpec(avm({}), CONTEXT);
  if (!base.ok) throw new Error('fixture');

  it('adds the Secret\'s base64 value as cloud-init user data', () => {
    const userData = Buffer.from('#cloud-config\nhostname: web-01\n').toString('base64');
    const result = withCloudInitUserData(base.vm, `${userData}\n`);
    expect(result.ok && result.vm.cloudInitUserData).toBe(userData);
    expect(base.vm.cloudInitUserData).toBeUndefined();
  });

  it('refuses data that is not base64, and more than Prism accepts', () => {
    expect(withCloudInitUserData(base.vm, '#cloud-config')).toMatchObject({ ok: false, reason: 'InvalidCloudInit' });
    expect(withCloudInitUserData(base.vm, '')).toMatchObject({ ok: false, reason: 'InvalidCloudInit' });
    const tooLarge = 'A'.repeat(MAX_USER_DATA_BASE64_LENGTH + 4);
    expect(withCloudInitUserData(base.vm, tooLarge)).toMatchObject({ ok: false, reason: 'InvalidCloudInit', message: /at most 128000/ });
  });
});
