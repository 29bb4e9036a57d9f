import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crdManifest } from '@k8s-operators/controller-core';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { AhvVmResource, AhvVmSpecSchema } from './ahvvm-resource.ts';
import { CRD_FILES } from './crd-files.ts';

const SAMPLES = join(CRD_FILES.directory, '..', 'samples');

async function sampleObjects(file: string): Promise<Record<string, unknown>[]> {
  return parseAllDocuments(await readFile(join(SAMPLES, file), 'utf8')).map((document) => document.toJS() as Record<string, unknown>);
}

describe('the AhvVm CRD', () => {
  it('keeps the seed\'s group, version, names, minimums and printer columns', () => {
    const crd = crdManifest(AhvVmResource);
    expect(crd.metadata.name).toBe('ahvvms.nutanix.com');
    expect(crd.spec.names).toMatchObject({ kind: 'AhvVm', plural: 'ahvvms', singular: 'ahvvm', shortNames: ['avm'] });
    const [version] = crd.spec.versions;
    expect(version?.name).toBe('v1alpha1');
    const spec = version?.schema.openAPIV3Schema.properties?.spec?.properties ?? {};
    expect(spec.num_sockets).toMatchObject({ type: 'integer', minimum: 1 });
    expect(spec.num_vcpus_per_socket).toMatchObject({ type: 'integer', minimum: 1 });
    expect(spec.memory_size_mib).toMatchObject({ type: 'integer', minimum: 1024 });
    expect(version?.additionalPrinterColumns?.slice(0, 3)).toEqual([
      { name: 'Sockets', type: 'integer', jsonPath: '.spec.num_sockets', description: 'Number of sockets' },
      { name: 'vCPUsPerSocket', type: 'integer', jsonPath: '.spec.num_vcpus_per_socket', description: 'Number of vCPUs per socket' },
      { name: 'Memory', type: 'integer', jsonPath: '.spec.memory_size_mib', description: 'Memory Size in MiB' },
    ]);
    expect(version?.additionalPrinterColumns?.map((column) => column.name)).toEqual([
      'Sockets', 'vCPUsPerSocket', 'Memory', 'Power', 'IP', 'Ready', 'Reason', 'Age',
    ]);
  });
});

describe('the samples', () => {
  it('include the seed\'s sample unchanged', async () => {
    expect(await sampleObjects('ahvvm-from-operator.yaml')).toEqual([
      {
        apiVersion: 'nutanix.com/v1alpha1',
        kind: 'AhvVm',
        metadata: { name: 'ahvvm-from-operator' },
        spec: { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 },
      },
    ]);
  });

  it.each(['ahvvm-from-operator.yaml', 'ahvvm-web-01.yaml'])('%s has AhvVm specs of the declared schema', async (file) => {
    const avms = (await sampleObjects(file)).filter((object) => object.kind === 'AhvVm');
    expect(avms.length).toBeGreaterThan(0);
    for (const avm of avms) {
      expect(avm.apiVersion).toBe(AhvVmResource.apiVersion);
      expect([...Value.Errors(AhvVmSpecSchema, avm.spec)]).toEqual([]);
    }
    // The check has teeth:
    expect(Value.Check(AhvVmSpecSchema, { num_sockets: 0 })).toBe(false);
    expect(Value.Check(AhvVmSpecSchema, { power_state: 'ON' })).toBe(false);
  });
});
