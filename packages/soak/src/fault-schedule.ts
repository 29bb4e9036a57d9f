// When each fault strikes and for how long, drawn from the seed before the run starts, so the schedule goes in the
// report and the same seed repeats it. Every kind is injected in every round (a round is about 20 minutes, or the
// whole run when shorter); within a round the faults are shuffled into slots that never overlap, so the report can
// tell which fault an alert or a violation follows. A lasting fault gets a slot long enough to hold it and the
// recovery after it.
import type { FaultKind, OperatorName } from './timeline.ts';
import type { Random } from './random.ts';

export interface PlannedFault {
  kind: FaultKind;
  /** Milliseconds after the workload starts. */
  atMs: number;
  /** How long the fault holds (0 for an instant one: a kill, a delete, a restart). */
  holdMs: number;
  /** The operator it aims at, for the kinds that hit an operator. */
  operator?: OperatorName;
}

/** Nothing is injected in the first minute: the operators and the workload settle in first. */
export const FAULT_FREE_START_MS = 60_000;
const ROUND_MS = 20 * 60_000;
/** Time left after a fault for what it broke to recover (a new leader, relists, a restore) before the next one. */
const RECOVERY_MS = 40_000;

/** Faults that last: as long as an alert's `for:` when the run is long enough for that, never longer than 4 minutes. */
function lasting(kind: FaultKind, roundMs: number): number {
  switch (kind) {
    case 'seaweedfs-stop':
    case 'prism-outage':
      return Math.min(4 * 60_000, Math.max(30_000, roundMs / 5));
    case 'prism-burst':
    case 'prism-slow-tasks':
    case 'prism-failed-tasks':
      return Math.min(90_000, Math.max(20_000, roundMs / 10));
    default:
      return 0;
  }
}

/** One round's faults: every kind, the leader of each operator killed, and one operator's leader deleted gracefully. */
function roundFaults(random: Random): Omit<PlannedFault, 'atMs' | 'holdMs'>[] {
  return [
    { kind: 'leader-kill', operator: 'maintpage-operator' },
    { kind: 'leader-kill', operator: 'postgresql-operator' },
    { kind: 'leader-kill', operator: 'nutanix-ahvvm-operator' },
    { kind: 'leader-delete', operator: random.pick(['maintpage-operator', 'postgresql-operator', 'nutanix-ahvvm-operator'] as const) },
    // Only the PostgreSQL operator runs two replicas as deployed.
    { kind: 'follower-kill', operator: 'postgresql-operator' },
    { kind: 'apiserver-restart' },
    { kind: 'etcd-restart' },
    { kind: 'db-pod-delete-during-backup' },
    { kind: 'db-pod-delete-during-restore' },
    { kind: 'backup-store-kill' },
    { kind: 'seaweedfs-stop' },
    { kind: 'prism-burst' },
    { kind: 'prism-slow-tasks' },
    { kind: 'prism-failed-tasks' },
    { kind: 'prism-outage' },
  ];
}

function shuffle<T>(items: T[], random: Random): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

export function planFaults(durationMs: number, random: Random): PlannedFault[] {
  const faultTime = durationMs - FAULT_FREE_START_MS;
  if (faultTime <= 0) return [];
  const rounds = Math.max(1, Math.round(faultTime / ROUND_MS));
  const roundMs = faultTime / rounds;
  const planned: PlannedFault[] = [];
  for (let round = 0; round < rounds; round++) {
    const faults = shuffle(roundFaults(random), random);
    // Slot weights: an instant fault 1, a lasting one 1 more per RECOVERY_MS it holds.
    const weights = faults.map((f) => 1 + lasting(f.kind, roundMs) / RECOVERY_MS);
    const unitMs = roundMs / weights.reduce((a, b) => a + b, 0);
    let slotStart = FAULT_FREE_START_MS + round * roundMs;
    faults.forEach((fault, i) => {
      const slotMs = (weights[i] ?? 1) * unitMs;
      // A lasting fault keeps a fifth of its slot free after it, for the recovery to be seen before the next one.
      const holdMs = Math.min(lasting(fault.kind, roundMs), slotMs * 0.8);
      const atMs = Math.round(slotStart + random.next() * Math.max(0, slotMs * 0.8 - holdMs) * 0.5);
      planned.push({ ...fault, atMs, holdMs: Math.round(holdMs) });
      slotStart += slotMs;
    });
  }
  return planned;
}
