// When each fault strikes and for how long, drawn from the seed before the run starts, so the schedule goes in the
// report and the same seed repeats it. Every kind is injected in every round (a round is about 20 minutes, or the
// whole run when shorter), but for the sparing below; within a round the faults are shuffled into slots that never
// overlap, so the report can tell which fault an alert or a violation follows. A lasting fault gets a slot long
// enough to hold it and the recovery after it.
//
// A leak shows only over one process's life, and with every operator's Pods killed once a round a process seldom
// lives the 20 minutes a memory slope needs after its own warm-up. So in a run of three rounds or more each operator
// is spared one round: nothing kills or deletes its Pods in that round, its kills in the round before come first in
// that round and those in the round after come last. Its processes then live about two rounds (the Nutanix operator's
// from the half-time switch to the end), and every operator's memory is judged in every hour. The first round is
// never the spared one, since the run's own warm-up eats into it.
import { OPERATORS, type FaultKind, type OperatorName } from './timeline.ts';
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

/** The kinds that end an operator's process: a SIGKILL or a Pod delete. */
const PROCESS_ENDING: ReadonlySet<FaultKind> = new Set(['leader-kill', 'leader-delete', 'follower-kill']);

/** Runs of fewer rounds keep every operator in every round: sparing one would leave its leader killed once or never. */
const MIN_ROUNDS_TO_SPARE = 3;

/**
 * When the workload restarts the Nutanix operator to switch it from Prism v3 to v4, as an upgrade would (a rolling
 * restart): half-time. That restart ends a process as a kill does, so the schedule allows for it.
 */
export const nutanixSwitchAtMs = (durationMs: number): number => durationMs / 2;

/**
 * The round each operator is spared in, or none for a short run. Never the first round; the Nutanix operator the
 * last: its kills in the round before come first, before half-time when the run has three rounds, so its process
 * started by the switch to v4 lives to the end and the operator is judged on v4.
 */
export function sparedRounds(rounds: number): Map<OperatorName, number> {
  if (rounds < MIN_ROUNDS_TO_SPARE) return new Map();
  return new Map([['maintpage-operator', 1], ['postgresql-operator', 2], ['nutanix-ahvvm-operator', rounds - 1]]);
}

/**
 * One round's faults: every kind, the leader of each operator killed, and one operator's leader deleted gracefully;
 * the operators spared this round are left out of all three.
 */
function roundFaults(random: Random, spared: ReadonlySet<OperatorName>): Omit<PlannedFault, 'atMs' | 'holdMs'>[] {
  const exposed = OPERATORS.filter((operator) => !spared.has(operator));
  return [
    ...exposed.map((operator) => ({ kind: 'leader-kill' as const, operator })),
    { kind: 'leader-delete', operator: random.pick(exposed) },
    // Only the PostgreSQL operator runs two replicas as deployed.
    ...(spared.has('postgresql-operator') ? [] : [{ kind: 'follower-kill' as const, operator: 'postgresql-operator' as const }]),
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

/**
 * The round's shuffled faults with the process-ending ones of `first` moved to the front and those of `last` to the
 * back, each group keeping its shuffled order: around a spared round the kills keep their distance from it.
 */
function placeAroundSparedRounds<T extends { kind: FaultKind; operator?: OperatorName }>(faults: T[], first: ReadonlySet<OperatorName>, last: ReadonlySet<OperatorName>): T[] {
  const endsProcessOf = (fault: T, operators: ReadonlySet<OperatorName>): boolean => PROCESS_ENDING.has(fault.kind) && fault.operator !== undefined && operators.has(fault.operator);
  return [
    ...faults.filter((fault) => endsProcessOf(fault, first)),
    ...faults.filter((fault) => !endsProcessOf(fault, first) && !endsProcessOf(fault, last)),
    ...faults.filter((fault) => endsProcessOf(fault, last)),
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
  const spared = sparedRounds(rounds);
  const sparedIn = (round: number): Set<OperatorName> => new Set(OPERATORS.filter((operator) => spared.get(operator) === round));
  const planned: PlannedFault[] = [];
  for (let round = 0; round < rounds; round++) {
    const faults = placeAroundSparedRounds(shuffle(roundFaults(random, sparedIn(round)), random), sparedIn(round + 1), sparedIn(round - 1));
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
