// Projects a VM can be put in, as CAPX v1.10.3 finds and assigns them (controllers/helpers.go `GetProjectUUID`: v3
// `GetProject` by UUID, or `ListAllProject(ctx, "")` — POST /projects/list with an empty filter, matched by name
// client-side with EqualFold; controllers/nutanixmachine_controller.go `addVMToProject`: the v4 create body's
// `project: {extId}`, vmm-go-client v4.2.1 config.Vm.Project). The v3 shapes are prism-go-client v3_structs.go
// `Project`/`ProjectListResponse` @1e253ea; a v3 create names it in `metadata.project_reference` (v3.1 swagger).

import { describe, expect, it } from 'vitest';
import { VMM_VMS_PATH } from '../src/index.ts';
import { GO_METADATA, goDecodeProblems, goError, goSlice, goStruct } from './go-client.ts';
import { firstMessage, type VmJson } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, v4VmBody } from './v4-client.ts';

const TEAM_A = '9a1b2c3d-0000-4000-8000-00000000000a';
const DEFAULT_PROJECT = '9a1b2c3d-0000-4000-8000-0000000000df';
const UNKNOWN = '9a1b2c3d-0000-4000-8000-0000000000ff';

const GO_PROJECT_RESOURCES = goStruct({ is_default: 'bool' });
/** prism-go-client v3 `Project` (the fields CAPX reads: metadata.uuid and spec.name). */
const GO_PROJECT = goStruct({
  api_version: 'string',
  metadata: GO_METADATA,
  spec: goStruct({ name: 'string', resources: GO_PROJECT_RESOURCES }),
  status: goStruct({ state: 'string', name: 'string', resources: GO_PROJECT_RESOURCES }),
});
const GO_PROJECT_LIST = goStruct({
  api_version: 'string',
  entities: goSlice(GO_PROJECT),
  metadata: goStruct({ filter: 'string', kind: 'string', length: 'int', offset: 'int', total_matches: 'int' }),
});

interface ProjectListJson {
  metadata: { total_matches: number; kind: string };
  entities: { metadata: { uuid: string; kind: string }; spec: { name: string }; status: { resources: { is_default: boolean } } }[];
}

describe('projects', () => {
  const prism = useFastSimulator({ projects: [{ name: 'default', uuid: DEFAULT_PROJECT }, { name: 'team-a', uuid: TEAM_A }] });

  it('v3: POST /projects/list with CAPX\'s empty filter lists every project in prism-go-client\'s shape, the default one marked', async () => {
    const reply = await prism.client.request('POST', '/projects/list', { kind: 'project', filter: '', length: 100 });
    expect(reply.status).toBe(200);
    expect(goError(reply)).toBeUndefined();
    expect(goDecodeProblems(reply.json, GO_PROJECT_LIST)).toEqual([]);
    const list = reply.json as ProjectListJson;
    expect(list.metadata).toMatchObject({ kind: 'project', total_matches: 2 });
    expect(list.entities.map((p) => [p.spec.name, p.metadata.uuid, p.status.resources.is_default])).toEqual([
      ['default', DEFAULT_PROJECT, true],
      ['team-a', TEAM_A, false],
    ]);
  });

  it('v3: name==<name> finds one project; GET /projects/{uuid} shows it, and an unknown uuid is 404 ENTITY_NOT_FOUND of kind project', async () => {
    const named = await prism.client.request('POST', '/projects/list', { kind: 'project', filter: 'name==team-a' });
    expect((named.json as ProjectListJson).entities.map((p) => p.metadata.uuid)).toEqual([TEAM_A]);
    const one = await prism.client.request('GET', `/projects/${TEAM_A}`);
    expect(one.status).toBe(200);
    expect(goDecodeProblems(one.json, GO_PROJECT)).toEqual([]);
    expect(one.json).toMatchObject({ metadata: { kind: 'project', uuid: TEAM_A }, spec: { name: 'team-a' } });
    const missing = await prism.client.request('GET', `/projects/${UNKNOWN}`);
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ kind: 'project', state: 'ERROR' });
    expect(firstMessage(missing).reason).toBe('ENTITY_NOT_FOUND');
  });

  it('v3: a VM created with metadata.project_reference is in that project, with its name filled in; without one it is in _internal', async () => {
    const spec = { name: 'in-team-a', resources: {} };
    const { uuid, taskUuid } = await prism.client.createVm(spec, { project_reference: { kind: 'project', uuid: TEAM_A } });
    expect((await prism.client.waitForTask(taskUuid)).status).toBe('SUCCEEDED');
    const vm: VmJson = await prism.client.getVm(uuid);
    expect(vm.metadata.project_reference).toEqual({ kind: 'project', uuid: TEAM_A, name: 'team-a' });
    const plain = await prism.client.createReadyVm({ name: 'no-project', resources: {} });
    expect(plain.metadata.project_reference).toMatchObject({ kind: 'project', name: '_internal' });
  });

  it('v3: a project the PC does not have is accepted with 202 and fails the create task (pc.2022.1+ reports it asynchronously), leaving no VM', async () => {
    const { uuid, taskUuid } = await prism.client.createVm({ name: 'bad-project', resources: {} }, { project_reference: { kind: 'project', uuid: UNKNOWN } });
    const task = await prism.client.waitForTask(taskUuid);
    expect(task.status).toBe('FAILED');
    expect(task.error_detail).toContain(`Project with uuid ${UNKNOWN} does not exist`);
    expect((await prism.client.request('GET', `/vms/${uuid}`)).status).toBe(404);
  });

  it('v4: a create with project.extId puts the VM in the project, and the VM shows it as a ProjectReference; v3 shows the same VM in it', async () => {
    const v4 = new V4TestClient(prism.simulator);
    const extId = await v4.createReadyVm(v4VmBody(prism.simulator, 'v4-in-team-a', { project: { $objectType: 'vmm.v4.ahv.config.ProjectReference', extId: TEAM_A } }));
    const { vm } = await v4.getVm(extId);
    expect(vm).toMatchObject({ project: { $objectType: 'vmm.v4.ahv.config.ProjectReference', extId: TEAM_A } });
    expect((await prism.client.getVm(extId)).metadata.project_reference).toMatchObject({ uuid: TEAM_A, name: 'team-a' });
    const { taskExtId } = await v4.createVm(v4VmBody(prism.simulator, 'v4-bad-project', { project: { extId: UNKNOWN } }));
    expect((await v4.waitForTask(taskExtId)).status).toBe('FAILED');
    expect((await v4.request('GET', `${VMM_VMS_PATH}?$filter=${encodeURIComponent("name eq 'v4-bad-project'")}`)).json).not.toHaveProperty('data');
  });
});
