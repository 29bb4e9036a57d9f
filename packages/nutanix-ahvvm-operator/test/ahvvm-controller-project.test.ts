// An AhvVm's `project`, on each Prism API, as CAPX puts a NutanixMachine's VM in its project:
// - v3 (CAPX v1.7.0, controllers/helpers.go `GetProjectUUID` and the create's `metadata.project_reference`),
// - v4 (CAPX v1.10.3, controllers/nutanixmachine_controller.go `addVMToProject`: the project found through v3 —
//   `ListAllProject(ctx, "")` or `GetProject` — and sent as the v4 create body's `project.extId`, vmm-go-client v4.2.1
//   `config.Vm.Project`). v4 has no projects API to use instead (multidomain v4 is beta in prism-go-client @1e253ea),
//   so on a Prism Central that serves v4 alone a project by name cannot be found: the AhvVm says so and asks for the
//   uuid, which the v4 create takes as it is.

import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { describe, expect, it } from 'vitest';
import type { AhvVmSpec } from '../src/api/ahvvm-resource.ts';
import type { PrismApiVersion } from '../src/vm/prism-vm-api.ts';
import { useOperatorPerSimulator } from './operator-per-simulator.ts';
import { clientFor, requestsByApi, v4ClientFor } from './simulator.ts';

const TEAM_A = '9a1b2c3d-0000-4000-8000-00000000000a';
const PROJECTS = [{ name: 'default', uuid: '9a1b2c3d-0000-4000-8000-0000000000df' }, { name: 'team-a', uuid: TEAM_A }];

const fixture = useOperatorPerSimulator();

function setUp(namespace: string, apis: 'both' | 'v4', version: PrismApiVersion): Promise<PrismSimulator> {
  return fixture.setUp(namespace, { projects: PROJECTS, apis }, version);
}

/** The project Prism shows the VM in, read through the API under test. */
async function projectOf(simulator: PrismSimulator, version: PrismApiVersion, uuid: string): Promise<string | undefined> {
  if (version === 'v3') {
    const v3 = clientFor(simulator);
    const vm = await v3.getVm(uuid).finally(() => v3.close());
    return (vm?.metadata.project_reference as { uuid?: string } | undefined)?.uuid;
  }
  const v4 = v4ClientFor(simulator);
  const read = await v4.getVm(uuid).finally(() => v4.close());
  return (read?.vm.project as { extId?: string } | undefined)?.extId;
}

async function createdInProject(simulator: PrismSimulator, namespace: string, name: string, spec: AhvVmSpec, version: PrismApiVersion): Promise<void> {
  await fixture.env.apply(namespace, name, spec);
  const avm = await fixture.env.waitForCondition(namespace, name, 'Ready', 'True', 'Available');
  expect(await projectOf(simulator, version, avm.status?.uuid ?? '')).toBe(TEAM_A);
}

describe('project', () => {
  it('v3: a project by name is found with POST /projects/list and set as metadata.project_reference on the create', async () => {
    const simulator = await setUp('project-v3', 'both', 'v3');
    await createdInProject(simulator, 'project-v3', 'in-team-a', { project: { name: 'team-a' } }, 'v3');
    expect(requestsByApi(simulator).v4).toEqual([]);
    expect(requestsByApi(simulator).v3).toEqual(expect.arrayContaining(['POST /projects/list', 'POST /vms']));
  });

  it('v4 on a Prism Central serving both: found through v3 as CAPX v1.10.3 does, and sent as project.extId on the v4 create', async () => {
    const simulator = await setUp('project-v4-both', 'both', 'v4');
    await createdInProject(simulator, 'project-v4-both', 'in-team-a', { project: { name: 'team-a' } }, 'v4');
    const { v3, v4 } = requestsByApi(simulator);
    expect(v3).toEqual(['POST /projects/list']);
    expect(v4).toEqual(expect.arrayContaining(['POST /api/vmm/v4.2/ahv/config/vms']));
  });

  it('v4 only: a project by uuid is used as it is; by name the AhvVm says v3 is missing and to give the uuid; an unknown name is ProjectNotFound', async () => {
    const simulator = await setUp('project-v4-only', 'v4', 'v4');
    const namespace = 'project-v4-only';
    await createdInProject(simulator, namespace, 'by-uuid', { project: { uuid: TEAM_A } }, 'v4');

    await fixture.env.apply(namespace, 'by-name', { project: { name: 'team-a' } });
    const byName = await fixture.env.waitForCondition(namespace, 'by-name', 'Ready', 'False', 'NotSupportedByPrismApi');
    expect(byName.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain('serves no v3 API (404), which is where a project is found by name');
    expect(simulator.inspect().vms.filter((vm) => vm.name === 'by-name')).toEqual([]);

    const both = await setUp('project-unknown', 'both', 'v4');
    await fixture.env.apply('project-unknown', 'no-such', { project: { name: 'team-b' } });
    const unknown = await fixture.env.waitForCondition('project-unknown', 'no-such', 'Ready', 'False', 'ProjectNotFound');
    expect(unknown.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain('project: Prism Central has no project named "team-b"');
    expect(both.inspect().vms).toEqual([]);
  });
});
