// The programmatic API of the Prism Central simulator (v3 and v4), for tests, benchmarks and the demo.

export { startPrismSimulator, DEFAULT_PASSWORD, DEFAULT_TIMINGS, DEFAULT_USERNAME } from './server.ts';
export type { PrismSimulator, PrismSimulatorOptions, ServedApis } from './server.ts';
export { SERVED_APIS } from './server.ts';
export { DEFAULT_CLUSTERS, DEFAULT_IMAGES, DEFAULT_PRISM_CENTRAL, DEFAULT_PROJECTS, DEFAULT_SUBNETS } from './inventory.ts';
export type { ClusterSeed, GpuSeed, GpuType, GpuVendorName, ImageSeed, PrismCentralSeed, ProjectSeed, StorageContainerSeed, SubnetSeed, SubnetType } from './inventory.ts';
export { DEFAULT_CATEGORIES } from './categories.ts';
export type { CategorySeed } from './categories.ts';
export { PRISM_BASE_PATH, PRISM_ENDPOINTS, SIMULATED_ENDPOINTS } from './prism-endpoints.ts';
export type { PrismEndpoint, SimulatedEndpoint } from './prism-endpoints.ts';
export {
  CLUSTERMGMT_CLUSTERS_PATH,
  CLUSTERMGMT_PHYSICAL_GPU_PROFILES,
  CLUSTERMGMT_VIRTUAL_GPU_PROFILES,
  CLUSTERMGMT_STORAGE_CONTAINERS_PATH,
  NETWORKING_SUBNETS_PATH,
  PRISM_CATEGORIES_PATH,
  PRISM_TASKS_PATH,
  V4_ENDPOINTS,
  V4_POWER_ACTIONS,
  VMM_IMAGES_PATH,
  VMM_VMS_PATH,
} from './v4-endpoints.ts';
export type { V4Endpoint, V4PowerAction } from './v4-endpoints.ts';
export { TASK_EXT_ID_PREFIX } from './v4-api.ts';
export { V4_DEFAULT_LIMIT, V4_MAX_LIMIT } from './v4-list.ts';
export { categoryExtId } from './v4-vm-model.ts';
export { ADMIN_BASE_PATH } from './admin-api.ts';
export type {
  ActiveFault,
  DropFault,
  ErrorFault,
  FaultController,
  FaultPhase,
  FaultRule,
  LatencyFault,
  RateLimitFault,
  SlowTaskFault,
  TaskFailureFault,
} from './faults.ts';
export type { SimulatorInspection } from './inspection.ts';
export type { LoggedRequest, RequestCount, RequestOutcome } from './request-stats.ts';
export type { AuthenticatedBy } from './auth.ts';
export { REQUEST_LOG_LIMIT } from './request-stats.ts';
export type { TaskOperation, TaskStatus } from './tasks.ts';
export type { EditConflictMode, InspectedVm, SimulatorTimings } from './vm-service.ts';
export type { VmPhase, VmState } from './vm-store.ts';
