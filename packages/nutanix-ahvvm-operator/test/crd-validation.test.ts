// The committed CRD on a real kube-apiserver, driven with kubectl as a user would: the samples apply, bad values are
// refused with messages that say what to fix, and `kubectl get` shows the seed's columns plus ours.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TestCluster, waitFor } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRD_FILES } from '../src/api/crd-files.ts';

const SAMPLES = join(CRD_FILES.directory, '..', 'samples');

function avmYaml(name: string, spec: string): string {
  return `apiVersion: nutanix.com/v1alpha1\nkind: AhvVm\nmetadata:\n  name: ${name}\nspec:\n${spec.replace(/^/gm, '  ')}\n`;
}

describe('the AhvVm CRD on a real API server', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({ node: false });
    const applied = await cluster.kubectl(['apply', '--server-side', '-k', CRD_FILES.directory]);
    expect(applied.stderr).toBe('');
    await cluster.waitForCrdsEstablished(['ahvvms.nutanix.com']);
    // Established updates discovery; kubectl may need a moment longer to see the new kind.
    await waitFor(async () => (await cluster.kubectl(['get', 'avm'])).code === 0, { what: 'kubectl to serve ahvvms', timeoutMs: 30_000 });
  });
  afterAll(() => cluster.stop());

  function apply(yaml: string) {
    return cluster.kubectl(['apply', '-f', '-'], { input: yaml });
  }

  it('applies the seed\'s sample unchanged and fills in the defaults', async () => {
    const result = await apply(await readSample('ahvvm-from-operator.yaml'));
    expect(result.stderr).toBe('');
    const got = await cluster.kubectl(['get', 'avm', 'ahvvm-from-operator', '-o', 'jsonpath={.spec}']);
    expect(JSON.parse(got.stdout)).toEqual({
      num_sockets: 2,
      num_vcpus_per_socket: 1,
      memory_size_mib: 2048,
      allow_power_cycle: false,
      deletion_policy: 'Delete',
    });
  });

  it('applies the sample with the new fields', async () => {
    const result = await apply(await readSample('ahvvm-web-01.yaml'));
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('ahvvm.nutanix.com/web-01 created');
  });

  it('applies the sample with an image lookup and a disk on a named storage container', async () => {
    const result = await apply(await readSample('ahvvm-image-lookup.yaml'));
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('ahvvm.nutanix.com/db-01 created');
  });

  it('applies the sample that puts the VM in a project', async () => {
    const result = await apply(await readSample('ahvvm-in-project.yaml'));
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('ahvvm.nutanix.com/team-vm-01 created');
  });

  it('applies the sample that adopts an existing VM', async () => {
    const result = await apply(await readSample('ahvvm-adopt.yaml'));
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('ahvvm.nutanix.com/legacy-web created');
  });

  it('applies the sample with GPUs', async () => {
    const result = await apply(await readSample('ahvvm-gpu.yaml'));
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('ahvvm.nutanix.com/inference-01 created');
  });

  it('shows the seed\'s columns, then Power, IP and Ready', async () => {
    const table = await cluster.kubectl(['get', 'ahvvm', 'ahvvm-from-operator']);
    const [header = '', row = ''] = table.stdout.trim().split('\n');
    expect(header.split(/\s+/)).toEqual(['NAME', 'SOCKETS', 'VCPUSPERSOCKET', 'MEMORY', 'POWER', 'IP', 'READY', 'AGE']);
    expect(row.split(/\s+/).slice(0, 4)).toEqual(['ahvvm-from-operator', '2', '1', '2048']);
  });

  it.each([
    ['num_sockets: 0', 'spec.num_sockets: Invalid value: 0: spec.num_sockets in body should be greater than or equal to 1'],
    ['num_sockets: 241', 'spec.num_sockets in body should be less than or equal to 240'],
    ['num_vcpus_per_socket: 65', 'spec.num_vcpus_per_socket in body should be less than or equal to 64'],
    ['memory_size_mib: 512', 'spec.memory_size_mib in body should be greater than or equal to 1024'],
    ['memory_size_mib: 4194305', 'spec.memory_size_mib in body should be less than or equal to 4194304'],
    ['num_sockets: 120\nnum_vcpus_per_socket: 4', 'num_sockets × num_vcpus_per_socket must be at most 240 vCPUs'],
    ['power_state: "ON"', 'spec.power_state: Unsupported value: "ON": supported values: "PoweredOn", "PoweredOff"'],
    ['cluster:\n  name: c1\n  uuid: 00061f7f-1d2c-4b6e-9a31-7c2e5d4f6a01', 'set exactly one of name or uuid for the cluster'],
    ['disks:\n- {}', 'a disk needs an image, an image_lookup or a size_mib'],
    ['disks:\n- image: {name: ubuntu}\n  image_lookup: {format: "^ubuntu-"}', 'set either image or image_lookup on a disk, not both'],
    ['disks:\n- image_lookup: {format: "capx-{{.BaseOS}}-{{.K8sVersion}}-*", base_os: ubuntu}', 'an AhvVm has no Kubernetes version: write the version into format itself'],
    ['disks:\n- image_lookup: {format: "{{.Name}}-.*"}', 'format can use {{.BaseOS}} only; write anything else into the pattern itself'],
    ['disks:\n- image_lookup: {format: "^{{.BaseOS}}-"}', 'format uses {{.BaseOS}}: set base_os to what it stands for, or write the OS into format'],
    ['disks:\n- size_mib: 1\n  storage_container: {}', 'set exactly one of name or uuid for the storage container'],
    ['nics:\n- subnet: {}', 'set exactly one of name or uuid for the subnet'],
    ['project: {name: team-a, uuid: 9a1b2c3d-0000-4000-8000-00000000000a}', 'set exactly one of name or uuid for the project'],
    ['gpus:\n- {device_id: 8629, name: NVIDIA A16}', 'set exactly one of device_id or name for a GPU'],
    ['gpus:\n- {}', 'set exactly one of device_id or name for a GPU'],
    ['adopt: {uuid: 3c1e2b4a-5d6f-4a7b-8c9d-0e1f2a3b4c5d}\ngpus:\n- {device_id: 8629}', 'gpus cannot be set with adopt: the operator attaches GPUs only when it creates a VM'],
    ['adopt: {}', 'spec.adopt.uuid: Required value'],
    ['adopt: {uuid: legacy-web}', 'spec.adopt.uuid in body should match'],
    ['adopt: {uuid: 3c1e2b4a-5d6f-4a7b-8c9d-0e1f2a3b4c5d}\ncloud_init:\n  user_data_secret_ref: {name: s1}', 'cloud_init cannot be set with adopt: Prism applies cloud-init only when it creates a VM'],
    ['adopt: {uuid: 3c1e2b4a-5d6f-4a7b-8c9d-0e1f2a3b4c5d}\nproject: {name: p1}', 'project cannot be set with adopt: the operator sets a project only when it creates a VM'],
    ['deletion_policy: Orphan', 'spec.deletion_policy: Unsupported value: "Orphan"'],
  ])('refuses %j with a message that says what to fix', async (spec, message) => {
    const result = await apply(avmYaml('bad', spec));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
  });

  it('refuses to change the cluster, the project, the GPUs or the cloud-init of an existing resource', async () => {
    const original = 'cluster:\n  name: c1\nproject:\n  name: p1\ncloud_init:\n  user_data_secret_ref:\n    name: s1';
    expect((await apply(avmYaml('pinned', original))).stderr).toBe('');
    const moved = await apply(avmYaml('pinned', original.replace('name: c1', 'name: c2')));
    expect(moved.stderr).toContain('cluster cannot be changed: Prism cannot move a VM to another cluster');
    const reproject = await apply(avmYaml('pinned', original.replace('name: p1', 'name: p2')));
    expect(reproject.stderr).toContain('project cannot be changed: the operator puts a VM in its project when it creates it');
    const unproject = await apply(avmYaml('pinned', original.replace('project:\n  name: p1\n', '')));
    expect(unproject.stderr).toContain('project cannot be changed');
    const regpu = await apply(avmYaml('pinned', `${original}\ngpus:\n- {device_id: 8629}`));
    expect(regpu.stderr).toContain('gpus cannot be changed: the operator attaches GPUs when it creates the VM');
    const reinit = await apply(avmYaml('pinned', original.replace('name: s1', 'name: s2')));
    expect(reinit.stderr).toContain('cloud_init cannot be changed');
    const resized = await apply(avmYaml('pinned', `${original}\nnum_sockets: 4`));
    expect(resized.stderr).toBe('');
  });

  it('refuses to add, change or remove adopt on an existing resource, and takes the same uuid in other letters', async () => {
    const adopting = 'adopt:\n  uuid: 3c1e2b4a-5d6f-4a7b-8c9d-0e1f2a3b4c5d';
    expect((await apply(avmYaml('adopter', adopting))).stderr).toBe('');
    expect((await apply(avmYaml('adopter', adopting.replace('3c1e', '4c1e')))).stderr).toContain('adopt cannot be added, changed or removed');
    expect((await apply(avmYaml('adopter', 'num_sockets: 1'))).stderr).toContain('adopt cannot be added, changed or removed');
    expect((await apply(avmYaml('adopter', adopting.toUpperCase().replace('ADOPT:\n  UUID', 'adopt:\n  uuid')))).stderr).toBe('');
    expect((await apply(avmYaml('plain', 'num_sockets: 1'))).stderr).toBe('');
    expect((await apply(avmYaml('plain', adopting))).stderr).toContain('adopt cannot be added, changed or removed');
  });
});

function readSample(file: string): Promise<string> {
  return readFile(join(SAMPLES, file), 'utf8');
}
