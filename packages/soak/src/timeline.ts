// What a soak run records, as plain data: the faults it injected and what it observed of the workload and the
// operators. The invariant checkers (invariants/) read only this, so each can be tested against recorded timelines
// that do and do not violate it, and a run's timeline can be checked again after the fact (soak-timeline.json).
// Times are milliseconds since the Unix epoch.

export type OperatorName = 'maintpage-operator' | 'postgresql-operator' | 'nutanix-ahvvm-operator';
export const OPERATORS: readonly OperatorName[] = ['maintpage-operator', 'postgresql-operator', 'nutanix-ahvvm-operator'];

/** Every kind of fault the injector knows. */
export const FAULT_KINDS = [
  'leader-kill', // the leader's container SIGKILLed
  'leader-delete', // the leader's Pod deleted gracefully
  'follower-kill', // a follower's container SIGKILLed (the PostgreSQL operator runs two replicas)
  'apiserver-restart',
  'etcd-restart',
  'db-pod-delete-during-backup',
  'db-pod-delete-during-restore',
  'backup-store-kill', // the volume backup store service's Pod SIGKILLed
  'seaweedfs-stop', // the S3 store stopped for minutes
  'prism-burst', // 429s, 5xx and dropped connections
  'prism-slow-tasks',
  'prism-failed-tasks',
  'prism-outage', // every Prism request refused for minutes
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * What the workload itself does that disturbs as a fault does: it deletes a database's serving Pod so that restores
 * happen, and a backup dumping from that Pod then fails, as it would on a node drain. Not drawn from the seed's fault
 * schedule, so not among the faults; the alert checks count it as a cause.
 */
export const DISRUPTION_KINDS = ['db-pod-delete'] as const;
export type DisruptionKind = (typeof DISRUPTION_KINDS)[number];
export interface DisruptionRecord { kind: DisruptionKind; target: string; at: number }

export interface FaultRecord {
  id: string;
  kind: FaultKind;
  /** What it hit: an operator, a Pod, `kube-apiserver`, `prism`... */
  target: string;
  startAt: number;
  /** When the fault was lifted (equal to startAt for an instant one, such as a kill). */
  endAt: number;
  /** What was done, for the report. */
  detail: string;
}

// ---- Nutanix ----------------------------------------------------------------------------------------------------

/** A VM in the simulator's inventory; `ownerUid` is the AhvVm UID from its description's ownership marker, if any. */
export interface PrismVm { uuid: string; name: string; ownerUid?: string }
/** The simulator's whole inventory at one moment (sampled every few seconds). */
export interface PrismInventorySample { at: number; vms: PrismVm[] }

export interface AhvVmRecord {
  namespace: string;
  name: string;
  uid: string;
  api: 'v3' | 'v4';
  createdAt: number;
  /** When the workload deleted it. */
  deletedAt?: number;
  /** When the API server no longer had it (its finalizer ran). */
  goneAt?: number;
}

// ---- PostgreSQL -------------------------------------------------------------------------------------------------

/**
 * A row the writer committed and PostgreSQL acknowledged, on the pod that served then. The writer numbers rows 1, 2,
 * 3...; after a restore brought back rows 1..m it goes on with m + 1, so the serving pod always holds exactly 1..n.
 * Database names are never reused within a run.
 */
export interface WriterAck { db: string; pod: string; row: number; at: number }

export interface BackupRecord {
  db: string;
  name: string;
  store: 'volume' | 'bucket';
  /** Phase as last seen: Pending, Running, Completed or Failed. */
  phase: string;
  verified?: boolean;
  startAt?: number;
  completedAt?: number;
  /** The object key (bucket) or file name (volume) the status names. */
  location?: string;
  /** Whether the object was found in its store when checked (after completion, and again after the settle). */
  objectExists?: boolean;
  /** Why it failed, as its status says: what an alert about it is checked against. */
  error?: string;
}

/**
 * A Pod that became a ready endpoint of a database's Service (labelled `appReady=ok`), queried as it appeared.
 * `restoredFrom` is the backup the operator says it restored (its `Restored` condition), if any.
 */
export interface ReadyEndpointRecord {
  db: string;
  pod: string;
  /** When the soak first saw it ready, and queried it. */
  at: number;
  restoredFrom?: string;
  /** When the operator recorded the restore as complete (the `Restored` condition's lastTransitionTime). */
  restoreCompletedAt?: number;
  /**
   * What the query found: the writer's rows in the table. The writer does not write to a pod before this query was
   * made, so what it found is what the restore (or an empty start) put there.
   */
  rowCount: number;
  maxRow: number;
  /** Rows are exactly 1..maxRow, each once (a mix of two backups, or a partial restore, breaks this). */
  contiguous: boolean;
  /** The query failed: the endpoint was ready but did not serve. */
  queryError?: string;
}

/** What the stores hold after the settle. */
export interface StoreContents {
  /** Object keys (bucket) and file names (volume) found, each with the store it is in. */
  objects: { store: 'volume' | 'bucket'; key: string }[];
  /** Keys of multipart uploads left open in the bucket. */
  incompleteUploads: string[];
  /** Keys of the PostgreSQLBackups that exist after the settle: their objects belong in the stores. */
  liveBackups: string[];
  /** Keys that `Retain` keeps on purpose: backups of databases the workload deleted (the report lists them apart). */
  retainedOnPurpose: string[];
}

// ---- MaintPage --------------------------------------------------------------------------------------------------

/**
 * A change of what an app's Service should answer: maintenance wanted or not for `app`, from `at` on (toggle or
 * schedule window). `initial`: the state the workload starts from, once the app answered; probes are judged against
 * it, but it is no switch, so it has no switch latency.
 */
export interface WantedChange { app: string; at: number; wanted: boolean; how: 'initial' | 'toggle' | 'window' }

/**
 * A wanted state holds at least this long, so a switch can be judged (and measured) before the next one: the workload
 * spaces its own changes at least this far apart. The end of the run does not, so a last wish cut shorter than this
 * by the end of observation says nothing of an operator that did not switch in time.
 */
export const MIN_HOLD_MS = 60_000;

/** One HTTP request through the app's Service. */
export interface ProbeResult {
  app: string;
  at: number;
  /** The app answered, the maintenance page (503 with Retry-After), or the request failed. */
  answered: 'app' | 'page' | 'error';
  status?: number;
  error?: string;
}

/** The app Service's EndpointSlices at one moment (sampled every 100 ms). */
export interface EndpointSample {
  app: string;
  at: number;
  endpoints: { pod: string; ready: boolean; terminating: boolean; podReady: boolean }[];
}

// ---- Every operator ---------------------------------------------------------------------------------------------

export interface ProcessSample {
  operator: OperatorName;
  pod: string;
  /** The container's ID as the Pod's status gives it: a new one, and a new process, each time the container restarts. */
  container: string;
  at: number;
  /** Whether the process held its operator's Lease: it took the lead when this turns true. */
  leader: boolean;
  rssMiB: number;
  openFds: number;
  sockets: number;
}

/** A container that ended when nothing was injected to end it, or a process that logged an unhandled error. */
export interface CrashRecord {
  operator: OperatorName;
  pod: string;
  at: number;
  reason: string;
  injected: boolean;
  /**
   * For a crash nothing injected: the ended container's last warnings and errors and its very last log line (see
   * observers/crash-log.ts), or why its log could not be read.
   */
  lastLog?: { lines: string[] } | { unreadable: string };
}

export interface QueueDepthSample { operator: OperatorName; at: number; depth: number }

/**
 * The machine the run shares with the cluster, every 10 s: a timing finding (a probe that timed out, a slow switch)
 * means something else when every core was busy. `cpuBusyPercent` is the share of all cores' time spent not idle
 * since the previous sample; `load1` is the kernel's one-minute load average, counting tasks waiting for a core or
 * for I/O; `cores` is how many the soak could use.
 */
export interface MachineLoadSample { at: number; load1: number; cores: number; cpuBusyPercent: number }

/** What the settle found, per operator. */
export interface SettleFindings {
  /** Work queue depth after the settle (from Prometheus). */
  queueDepth: Record<OperatorName, number>;
  /** Objects with a deletionTimestamp that still exist, as kind/namespace/name. */
  stuckFinalizers: string[];
  /** Objects whose status.observedGeneration is not metadata.generation, as kind/namespace/name. */
  staleObservedGeneration: string[];
  /** What the settle could not look at, and why: nothing can be claimed about it. */
  uncheckable: string[];
}

// ---- Alerts -----------------------------------------------------------------------------------------------------

/** An alert's firing, as Prometheus reported it: from when it was first seen firing to when it was last seen. */
export interface AlertFiring { alert: string; labels: Record<string, string>; firstSeenAt: number; lastSeenAt: number }

/**
 * A shipped alert, the fault and disruption kinds that explain it, and the faults that must raise it. `forSeconds` is
 * the rule's `for:`.
 */
export interface AlertExpectation { alert: string; forSeconds: number; explainedBy: (FaultKind | DisruptionKind)[]; expectedFor: FaultKind[] }

export interface SoakTimeline {
  seed: number;
  cluster: 'local' | 'kind';
  startedAt: number;
  /** When the workload and faults stopped and the settle began. */
  settleStartedAt: number;
  /**
   * When the MaintPage probes, and the sampling of its Services, stopped: they go on through the settle, so that a
   * switch asked for shortly before it is still seen. Timelines recorded before this was kept lack it: their probes
   * stopped at settleStartedAt.
   */
  observedUntil?: number;
  endedAt: number;
  /** Measurements before this are warm-up (left out of the RSS slope). */
  warmupEndsAt: number;
  faults: FaultRecord[];
  disruptions: DisruptionRecord[];
  prismInventory: PrismInventorySample[];
  ahvVms: AhvVmRecord[];
  /** The AhvVms that exist after the settle, and the simulator's VMs then. */
  finalAhvVmUids: string[];
  finalPrismVms: PrismVm[];
  writerAcks: WriterAck[];
  backups: BackupRecord[];
  readyEndpoints: ReadyEndpointRecord[];
  stores: StoreContents;
  wanted: WantedChange[];
  probes: ProbeResult[];
  endpointSamples: EndpointSample[];
  processSamples: ProcessSample[];
  crashes: CrashRecord[];
  queueDepth: QueueDepthSample[];
  machineLoad: MachineLoadSample[];
  settle: SettleFindings;
  alerts: AlertFiring[];
  alertExpectations: AlertExpectation[];
}

/** One broken promise, with when and the evidence. */
export interface Violation { invariant: string; at: number; evidence: string }

/** A checker's verdict: the counter's name is the invariant's; its value is violations.length. */
export interface InvariantResult { invariant: string; violations: Violation[] }
