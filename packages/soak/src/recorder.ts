// The timeline being recorded, shared by the workload, the samplers and the fault injector while a run goes on.
import type { SoakTimeline } from './timeline.ts';

export type Recorder = SoakTimeline;

/**
 * An empty record of a run. The workloads record into it while they are prepared, before the run's start is known:
 * the run sets `startedAt` and `warmupEndsAt` when it starts, and `settleStartedAt`, `observedUntil` (when the
 * MaintPage probes stop, at the end of the settle) and `endedAt` as it goes on.
 */
export function newRecorder(seed: number, cluster: 'local' | 'kind'): Recorder {
  return {
    seed, cluster, startedAt: 0, settleStartedAt: 0, endedAt: 0, warmupEndsAt: 0,
    faults: [], disruptions: [], prismInventory: [], ahvVms: [], finalAhvVmUids: [], finalPrismVms: [],
    writerAcks: [], backups: [], readyEndpoints: [],
    stores: { objects: [], incompleteUploads: [], liveBackups: [], retainedOnPurpose: [] },
    wanted: [], probes: [], endpointSamples: [], processSamples: [], crashes: [], queueDepth: [], machineLoad: [],
    settle: { queueDepth: { 'maintpage-operator': 0, 'postgresql-operator': 0, 'nutanix-ahvvm-operator': 0 }, stuckFinalizers: [], staleObservedGeneration: [], uncheckable: [] },
    alerts: [], alertExpectations: [],
  };
}
