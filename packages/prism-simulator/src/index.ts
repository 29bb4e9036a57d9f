// The programmatic API of the Prism Central v3 simulator, for tests, benchmarks and the demo.

export { startPrismSimulator, DEFAULT_PASSWORD, DEFAULT_TIMINGS, DEFAULT_USERNAME } from './server.ts';
export type { PrismSimulator, PrismSimulatorOptions } from './server.ts';
export { DEFAULT_CLUSTERS, DEFAULT_IMAGES, DEFAULT_PRISM_CENTRAL, DEFAULT_SUBNETS } from './inventory.ts';
export type { ClusterSeed, ImageSeed, PrismCentralSeed, SubnetSeed } from './inventory.ts';
export { DEFAULT_CATEGORIES } from './categories.ts';
export type { CategorySeed } from './categories.ts';
export { PRISM_BASE_PATH, PRISM_ENDPOINTS } from './prism-endpoints.ts';
export type { PrismEndpoint } from './prism-endpoints.ts';
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
export type { RequestCount, RequestOutcome } from './request-stats.ts';
export type { TaskOperation, TaskStatus } from './tasks.ts';
export type { EditConflictMode, InspectedVm, SimulatorTimings } from './vm-service.ts';
export type { VmPhase, VmState } from './vm-store.ts';
