// Test support only: the invariant tests build small hand-recorded timelines from this one.
import type { SoakTimeline } from '../timeline.ts';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/**
 * A one-hour run that recorded nothing: seed 1, started at 0, no warm-up, the settle at 1 h, every list empty and
 * every work queue drained. Tests override only what their invariant reads.
 */
export function emptyTimeline(overrides: Partial<SoakTimeline> = {}): SoakTimeline {
  return {
    seed: 1,
    cluster: 'local',
    startedAt: 0,
    settleStartedAt: HOUR,
    endedAt: HOUR,
    warmupEndsAt: 0,
    faults: [],
    disruptions: [],
    prismInventory: [],
    ahvVms: [],
    finalAhvVmUids: [],
    finalPrismVms: [],
    writerAcks: [],
    backups: [],
    readyEndpoints: [],
    stores: { objects: [], incompleteUploads: [], liveBackups: [], retainedOnPurpose: [] },
    wanted: [],
    probes: [],
    endpointSamples: [],
    processSamples: [],
    crashes: [],
    queueDepth: [],
    machineLoad: [],
    settle: {
      queueDepth: { 'maintpage-operator': 0, 'postgresql-operator': 0, 'nutanix-ahvvm-operator': 0 },
      stuckFinalizers: [],
      staleObservedGeneration: [],
      uncheckable: [],
    },
    alerts: [],
    alertExpectations: [],
    ...overrides,
  };
}
