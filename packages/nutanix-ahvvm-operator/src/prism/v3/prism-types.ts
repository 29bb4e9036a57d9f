/**
 * The Prism Central v3 JSON this package reads and writes (the v3.1 swagger and the pc.2024.3 recordings).
 * Only the fields the operator looks at are typed; every object keeps the rest (`[key: string]: unknown`), because a
 * PUT is a full replace and must send back everything the server filled in.
 */

export interface PrismReference {
  kind: string;
  uuid: string;
  name?: string;
}

/** A cluster, image or subnet as the v3 list calls show it; only what the name lookup reads. */
export interface PrismInventoryEntity {
  /** `creation_time` (RFC 3339) is what an image lookup picks the newest image by. */
  metadata: { uuid: string; kind?: string; creation_time?: string; [key: string]: unknown };
  /** A subnet's cluster (a VLAN subnet's) and its `subnet_type` (`VLAN`, `OVERLAY`). */
  spec?: { name?: string; cluster_reference?: PrismReference; resources?: { subnet_type?: string; [key: string]: unknown }; [key: string]: unknown };
  /** A cluster's `resources.config.service_list` says what it is: `["AOS"]` a Prism Element, `["PRISM_CENTRAL"]` the PC. */
  status?: { name?: string; resources?: { config?: { service_list?: string[] } }; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * The answer of POST /groups (`groups_get_entities_response`, prism-go-client's `GroupsGetEntitiesResponse`): each
 * entity's requested attributes as `data[].values[0].values[0]`.
 */
export interface PrismGroupsResponse {
  filtered_entity_count?: number;
  group_results?: {
    entity_results?: { entity_id: string; data?: { name: string; values?: { time?: number; values?: string[] }[] }[] }[];
  }[];
}

export interface PrismIpEndpoint {
  ip: string;
  type?: string;
  [key: string]: unknown;
}

export interface PrismDisk {
  uuid?: string;
  disk_size_mib?: number;
  disk_size_bytes?: number;
  device_properties?: {
    device_type?: string;
    disk_address?: { adapter_type?: string; device_index?: number; [key: string]: unknown };
    [key: string]: unknown;
  };
  data_source_reference?: PrismReference;
  storage_config?: { storage_container_reference?: PrismReference; [key: string]: unknown };
  [key: string]: unknown;
}

export interface PrismNic {
  uuid?: string;
  subnet_reference?: PrismReference;
  ip_endpoint_list?: PrismIpEndpoint[];
  /** Required by PUT ("Must specify NIC is_connected during update."). */
  is_connected?: boolean;
  [key: string]: unknown;
}

export interface PrismVmResources {
  num_sockets?: number;
  num_vcpus_per_socket?: number;
  memory_size_mib?: number;
  power_state?: string;
  disk_list?: PrismDisk[];
  nic_list?: PrismNic[];
  boot_config?: { boot_type?: string; [key: string]: unknown };
  guest_customization?: { cloud_init?: { user_data?: string; [key: string]: unknown }; [key: string]: unknown };
  [key: string]: unknown;
}

/** A GPU of a host (POST /hosts/list `status.resources.gpu_list`), prism-go-client v3_structs.go `GPU`. */
export interface PrismHostGpu {
  status?: string;
  vendor?: string;
  device_id?: number;
  name?: string;
  mode?: string;
  [key: string]: unknown;
}

/** A host as POST /hosts/list shows it: only what finding a GPU reads. */
export interface PrismHost {
  metadata: { uuid: string; [key: string]: unknown };
  status?: { cluster_reference?: { uuid?: string }; resources?: { gpu_list?: PrismHostGpu[] } };
}

export interface PrismVmSpec {
  name: string;
  description?: string;
  cluster_reference?: PrismReference;
  resources: PrismVmResources;
  [key: string]: unknown;
}

export interface PrismVmMetadata {
  kind: 'vm';
  uuid?: string;
  spec_version?: number;
  categories?: Record<string, string>;
  [key: string]: unknown;
}

/** The body of POST /vms and PUT /vms/{uuid} (`vm_intent_input`): never `status`. */
export interface PrismVmIntent {
  metadata: PrismVmMetadata;
  spec: PrismVmSpec;
}

export interface PrismStatusMessage {
  reason?: string;
  message?: string;
  [key: string]: unknown;
}

/** A VM as GET /vms/{uuid} and POST /vms/list show it. */
export interface PrismVm {
  metadata: PrismVmMetadata & { uuid: string };
  spec: PrismVmSpec;
  status: {
    name?: string;
    /** PENDING, RUNNING, COMPLETE, ERROR, DELETE_PENDING … */
    state: string;
    resources?: PrismVmResources;
    execution_context?: { task_uuid?: string | string[] };
    message_list?: PrismStatusMessage[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export type PrismTaskStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'SUSPENDED' | (string & {});

export interface PrismTask {
  uuid: string;
  status: PrismTaskStatus;
  operation_type?: string;
  percentage_complete?: number;
  progress_message?: string;
  error_code?: string;
  error_detail?: string;
  entity_reference_list?: PrismReference[];
  [key: string]: unknown;
}
