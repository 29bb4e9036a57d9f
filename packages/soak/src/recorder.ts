// The timeline being recorded, shared by the workload, the samplers and the fault injector while a run goes on.
import type { SoakTimeline } from './timeline.ts';

export type Recorder = SoakTimeline;

export function newRecorder(seed: number, cluster: 'local' | 'kind', startedAt: number, warmupMs: number): Recorder {
  return {
    seed, cluster, startedAt, settleStartedAt: 0, endedAt: 0, warmupEndsAt: startedAt + warmupMs,
    faults: [], prismInventory: [], ahvVms: [], finalAhvVmUids: [], finalPrismVms: [],
    writerAcks: [], backups: [], readyEndpoints: [],
    stores: { objects: [], incompleteUploads: [], liveBackups: [], retainedOnPurpose: [] },
    wanted: [], probes: [], endpointSamples: [], processSamples: [], crashes: [], queueDepth: [],
    settle: { queueDepth: { 'maintpage-operator': 0, 'postgresql-operator': 0, 'nutanix-ahvvm-operator': 0 }, stuckFinalizers: [], staleObservedGeneration: [], uncheckable: [] },
    alerts: [], alertExpectations: [],
  };
}
