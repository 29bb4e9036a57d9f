// The parts of the v3.1 swagger (`vm_intent_input`, `idempotence_identifiers_input`; `vm_list_metadata` is
// list-call.ts's) that the simulator checks. Keys that are not listed pass through untouched, as most of `vm_resources`
// does; the listed ones are checked for the types, enums and bounds the swagger gives.

import type { ArraySchema, ObjectSchema, Schema } from './schema-validation.ts';

const UUID_PATTERN = /^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/;

const uuid: Schema = { type: 'string', pattern: UUID_PATTERN };
const positiveInteger: Schema = { type: 'integer', minimum: 1 };

function reference(kind: string): ObjectSchema {
  return {
    type: 'object',
    required: ['kind', 'uuid'],
    properties: { kind: { type: 'string', enum: [kind] }, uuid, name: { type: 'string' } },
  };
}

function listOf(items: Schema): ArraySchema {
  return { type: 'array', items };
}

const disk: ObjectSchema = {
  type: 'object',
  properties: {
    uuid,
    disk_size_mib: { type: 'integer', minimum: 0 },
    disk_size_bytes: { type: 'integer', minimum: 0 },
    device_properties: {
      type: 'object',
      properties: {
        device_type: { type: 'string', enum: ['DISK', 'CDROM'] },
        disk_address: {
          type: 'object',
          properties: {
            adapter_type: { type: 'string', enum: ['SCSI', 'IDE', 'PCI', 'SATA', 'SPAPR_VSCSI'] },
            device_index: { type: 'integer', minimum: 0 },
          },
        },
      },
    },
    data_source_reference: {
      type: 'object',
      required: ['kind', 'uuid'],
      properties: { kind: { type: 'string', enum: ['image', 'vm_disk'] }, uuid, name: { type: 'string' } },
    },
  },
};

const nic: ObjectSchema = {
  type: 'object',
  properties: {
    uuid,
    nic_type: { type: 'string', enum: ['NORMAL_NIC', 'DIRECT_NIC', 'NETWORK_FUNCTION_NIC', 'SPAN_DESTINATION_NIC'] },
    subnet_reference: reference('subnet'),
    mac_address: { type: 'string', pattern: /^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/ },
    ip_endpoint_list: listOf({
      type: 'object',
      properties: { ip: { type: 'string' }, type: { type: 'string', enum: ['ASSIGNED', 'LEARNED'] } },
    }),
    is_connected: { type: 'boolean' },
    vlan_mode: { type: 'string', enum: ['ACCESS', 'TRUNKED'] },
    num_queues: positiveInteger,
  },
};

const resources: ObjectSchema = {
  type: 'object',
  properties: {
    num_sockets: positiveInteger,
    num_vcpus_per_socket: positiveInteger,
    num_threads_per_core: positiveInteger,
    memory_size_mib: positiveInteger,
    power_state: { type: 'string', enum: ['ON', 'OFF'] },
    power_state_mechanism: {
      type: 'object',
      properties: { mechanism: { type: 'string', enum: ['ACPI', 'GUEST', 'HARD'] } },
    },
    disk_list: listOf(disk),
    nic_list: listOf(nic),
    gpu_list: listOf({ type: 'object' }),
    serial_port_list: listOf({ type: 'object' }),
    boot_config: {
      type: 'object',
      properties: {
        boot_type: { type: 'string', enum: ['LEGACY', 'UEFI', 'SECURE_BOOT'] },
        boot_device_order_list: listOf({ type: 'string', enum: ['CDROM', 'DISK', 'NETWORK'] }),
      },
    },
    guest_customization: {
      type: 'object',
      properties: {
        cloud_init: {
          type: 'object',
          properties: { user_data: { type: 'string', maxLength: 128000 }, meta_data: { type: 'string' } },
        },
        is_overridable: { type: 'boolean' },
      },
    },
    machine_type: { type: 'string', enum: ['PC', 'PSERIES', 'Q35'] },
    hardware_clock_timezone: { type: 'string' },
    vnuma_config: { type: 'object', properties: { num_vnuma_nodes: { type: 'integer', minimum: 0 } } },
    is_vcpu_hard_pinned: { type: 'boolean' },
    enable_cpu_passthrough: { type: 'boolean' },
    memory_overcommit_enabled: { type: 'boolean' },
    cpu_hotplug_enabled: { type: 'boolean' },
  },
};

const vmMetadata: ObjectSchema = {
  type: 'object',
  required: ['kind'],
  properties: {
    kind: { type: 'string', enum: ['vm'] },
    uuid,
    name: { type: 'string' },
    spec_version: { type: 'integer', minimum: 0 },
    spec_hash: { type: 'string' },
    categories: { type: 'object', additionalProperties: { type: 'string' } },
    categories_mapping: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    use_categories_mapping: { type: 'boolean' },
    project_reference: reference('project'),
    owner_reference: reference('user'),
  },
};

/**
 * `vm_intent_input`. The top level is closed: sending `status` back (as a naive GET-modify-PUT would) is
 * rejected, because the documented practice is to drop `status` before a PUT.
 */
export const vmIntentSchema: ObjectSchema = {
  type: 'object',
  required: ['spec', 'metadata'],
  additionalProperties: false,
  properties: {
    api_version: { type: 'string' },
    metadata: vmMetadata,
    spec: {
      type: 'object',
      required: ['name', 'resources'],
      properties: {
        name: { type: 'string', maxLength: 256 },
        description: { type: 'string', maxLength: 1000 },
        cluster_reference: reference('cluster'),
        resources,
      },
    },
  },
};

/** `idempotence_identifiers_input`. */
export const idempotenceInputSchema: ObjectSchema = {
  type: 'object',
  required: ['count'],
  properties: {
    client_identifier: { type: 'string', minLength: 1 },
    count: positiveInteger,
    valid_duration_in_minutes: positiveInteger,
  },
};

// Typed views of bodies that passed the schemas above. Only validated keys are typed; everything else is
// carried along as `unknown`.

export interface ReferenceInput {
  kind: string;
  uuid: string;
  name?: string;
}

export interface DiskInput {
  uuid?: string;
  disk_size_mib?: number;
  disk_size_bytes?: number;
  device_properties?: { device_type?: 'DISK' | 'CDROM'; disk_address?: { adapter_type?: string; device_index?: number } };
  data_source_reference?: ReferenceInput;
  [key: string]: unknown;
}

export interface NicInput {
  uuid?: string;
  subnet_reference?: ReferenceInput;
  mac_address?: string;
  ip_endpoint_list?: { ip?: string; type?: 'ASSIGNED' | 'LEARNED'; [key: string]: unknown }[];
  is_connected?: boolean;
  [key: string]: unknown;
}

export interface ResourcesInput {
  num_sockets?: number;
  num_vcpus_per_socket?: number;
  num_threads_per_core?: number;
  memory_size_mib?: number;
  power_state?: 'ON' | 'OFF';
  disk_list?: DiskInput[];
  nic_list?: NicInput[];
  [key: string]: unknown;
}

export interface VmIntentInput {
  api_version?: string;
  metadata: {
    kind: 'vm';
    uuid?: string;
    spec_version?: number;
    categories?: Record<string, string>;
    categories_mapping?: Record<string, string[]>;
    use_categories_mapping?: boolean;
    project_reference?: ReferenceInput;
    owner_reference?: ReferenceInput;
    [key: string]: unknown;
  };
  spec: {
    name: string;
    description?: string;
    cluster_reference?: ReferenceInput;
    resources: ResourcesInput;
    [key: string]: unknown;
  };
}

export interface IdempotenceInput {
  client_identifier?: string;
  count: number;
  valid_duration_in_minutes?: number;
}
