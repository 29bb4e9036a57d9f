// Dispatches an authenticated request for a known endpoint to the code that serves it.

import type { CategoryStore } from './categories.ts';
import { API_VERSION, PrismApiError, invalidRequest } from './errors.ts';
import type { HttpReply } from './http-io.ts';
import type { IdempotenceRegistry } from './idempotence.ts';
import type { Inventory } from './inventory.ts';
import { listHosts } from './hosts-list.ts';
import { listInventory } from './inventory-list.ts';
import { getInventoryEntity } from './inventory-view.ts';
import type { EndpointMatch } from './prism-endpoints.ts';
import { validate } from './schema-validation.ts';
import { groupStorageContainers } from './storage-container-groups.ts';
import type { TaskRunner } from './tasks.ts';
import { idempotenceInputSchema, type IdempotenceInput } from './vm-schema.ts';
import type { VmService } from './vm-service.ts';
import type { Reference, VmStore } from './vm-store.ts';

export interface PrismApiDependencies {
  vms: VmService;
  tasks: TaskRunner;
  idempotence: IdempotenceRegistry;
  inventory: Inventory;
  /** Every VM, for what shows which GPUs they hold. */
  store: VmStore;
  categories: CategoryStore;
  user: Required<Reference>;
}

export async function servePrismEndpoint(match: EndpointMatch, readBody: () => Promise<unknown>, deps: PrismApiDependencies): Promise<HttpReply> {
  const param = match.param ?? '';
  const [name = '', value = ''] = match.params;
  switch (match.endpoint) {
    case 'POST /vms':
      return deps.vms.create(await readBody());
    case 'GET /vms/{uuid}':
      return deps.vms.get(param);
    case 'PUT /vms/{uuid}':
      return deps.vms.update(param, await readBody());
    case 'DELETE /vms/{uuid}':
      return deps.vms.remove(param);
    case 'POST /vms/list':
      return deps.vms.list(await readBody());
    case 'POST /clusters/list':
      return listInventory(deps.inventory, 'cluster', await readBody());
    case 'GET /clusters/{uuid}':
      return getInventoryEntity(deps.inventory, 'cluster', param);
    case 'POST /images/list':
      return listInventory(deps.inventory, 'image', await readBody());
    case 'GET /images/{uuid}':
      return getInventoryEntity(deps.inventory, 'image', param);
    case 'POST /subnets/list':
      return listInventory(deps.inventory, 'subnet', await readBody());
    case 'GET /subnets/{uuid}':
      return getInventoryEntity(deps.inventory, 'subnet', param);
    case 'POST /hosts/list':
      return listHosts(deps.inventory, deps.store.all(), await readBody());
    case 'POST /projects/list':
      return listInventory(deps.inventory, 'project', await readBody());
    case 'GET /projects/{uuid}':
      return getInventoryEntity(deps.inventory, 'project', param);
    case 'POST /groups':
      return groupStorageContainers(deps.inventory, await readBody());
    case 'POST /categories/list':
      return deps.categories.listKeys(await readBody());
    case 'GET /categories/{name}':
      return deps.categories.getKey(name);
    case 'PUT /categories/{name}':
      return deps.categories.putKey(name, await readBody());
    case 'DELETE /categories/{name}':
      return deps.categories.deleteKey(name);
    case 'POST /categories/{name}/list':
      return deps.categories.listValues(name, await readBody());
    case 'GET /categories/{name}/{value}':
      return deps.categories.getValue(name, value);
    case 'PUT /categories/{name}/{value}':
      return deps.categories.putValue(name, value, await readBody());
    case 'DELETE /categories/{name}/{value}':
      return deps.categories.deleteValue(name, value);
    case 'GET /tasks/{uuid}': {
      const task = deps.tasks.view(param.toLowerCase());
      // Clients look for INVALID_UUID in this error (TF helpers.go, kubermatic, CAPX v1.7).
      if (!task) throw new PrismApiError(404, 'INVALID_UUID', `INVALID_UUID: Task with uuid ${param} does not exist.`, { kind: 'task' });
      return { status: 200, json: task };
    }
    case 'POST /idempotence_identifiers': {
      const body = await readBody();
      const details = validate(idempotenceInputSchema, body);
      if (Object.keys(details).length > 0) throw invalidRequest(details, 'idempotence_identifier');
      return { status: 200, json: deps.idempotence.issue(body as IdempotenceInput) };
    }
    case 'GET /idempotence_identifiers/{client_identifier}': {
      const batch = deps.idempotence.forClient(param);
      if (!batch) throw identifiersNotFound(param);
      return { status: 200, json: batch };
    }
    case 'DELETE /idempotence_identifiers/{client_identifier}':
      if (!deps.idempotence.deleteClient(param)) throw identifiersNotFound(param);
      // The recorded response is 200 with the JSON body `null`.
      return { status: 200, json: null };
    case 'GET /users/me':
      // prism-go-client's session mode fetches its cookies with this call.
      return {
        status: 200,
        json: {
          api_version: API_VERSION,
          metadata: { kind: 'user', uuid: deps.user.uuid },
          spec: { resources: {} },
          status: { name: deps.user.name, state: 'COMPLETE', resources: { display_name: deps.user.name, user_type: 'LOCAL' } },
        },
      };
  }
}

function identifiersNotFound(clientIdentifier: string): PrismApiError {
  return new PrismApiError(404, 'ENTITY_NOT_FOUND', `No idempotence identifiers for client ${clientIdentifier}.`, { kind: 'idempotence_identifier' });
}
