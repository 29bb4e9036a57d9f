// Samplers and probers see one problem many times over (every 100 ms, every probe); grouping consecutive sightings
// into runs makes one violation of one problem, with its length as evidence.

/** How an item bears on a run: it is part of it, it ends it, or it is neither and the run goes on past it. */
export type RunRole = 'member' | 'breaks' | 'passes';

export interface Run<T> {
  first: T;
  last: T;
  members: T[];
}

/** The maximal runs of members among `items`, in their order. */
export function consecutiveRuns<T>(items: readonly T[], roleOf: (item: T) => RunRole): Run<T>[] {
  const runs: Run<T>[] = [];
  let current: Run<T> | undefined;
  for (const item of items) {
    const role = roleOf(item);
    if (role === 'member') {
      if (current) {
        current.last = item;
        current.members.push(item);
      } else {
        runs.push((current = { first: item, last: item, members: [item] }));
      }
    } else if (role === 'breaks') {
      current = undefined;
    }
  }
  return runs;
}
