// What the cluster looked like when a run failed before its report (a preparation that never converged, say): every
// Pod described and every Event, written beside where the report would have been, before the cluster is stopped and
// the evidence with it.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SoakCluster } from './cluster/soak-cluster.ts';

export const CLUSTER_STATE_FILE = 'cluster-state.txt';

/** Writes the cluster's Pods and Events to `<outDir>/cluster-state.txt` and returns its path. */
export async function saveClusterState(cluster: SoakCluster, outDir: string): Promise<string> {
  const sections: string[] = [];
  for (const args of [['get', 'pods', '-A', '-o', 'wide'], ['get', 'events', '-A', '--sort-by=.lastTimestamp'], ['describe', 'pods', '-A']]) {
    const result = await cluster.kubectl(args);
    sections.push(`$ kubectl ${args.join(' ')}\n${result.stdout}${result.stderr}`);
  }
  const path = join(outDir, CLUSTER_STATE_FILE);
  await writeFile(path, sections.join('\n'));
  return path;
}
