// maintpage.unreadyEndpointSelected: an app's Service sends traffic only to pods that are Ready. An endpoint marked
// ready whose pod is not Ready, and not on its way out (a terminating pod's endpoint lingers by design), means
// requests reach a pod that cannot answer them.
import type { EndpointSample, InvariantResult, SoakTimeline } from '../timeline.ts';
import { consecutiveRuns, type Run } from './consecutive-runs.ts';
import { runText } from './evidence-text.ts';
import { invariantResult, type Finding } from './invariant-result.ts';

/** One violation per run of consecutive samples of an app in which the same pod was selected while not Ready. */
export function checkUnreadyEndpointSelected(timeline: SoakTimeline): InvariantResult {
  const findings: Finding[] = [];
  for (const [app, samples] of Map.groupBy(timeline.endpointSamples, (sample) => sample.app)) {
    const sorted = samples.toSorted((a, b) => a.at - b.at);
    const offendingPods = new Set(sorted.flatMap((sample) => sample.endpoints.filter(isUnreadySelected).map((endpoint) => endpoint.pod)));
    for (const pod of offendingPods) {
      const runs = consecutiveRuns(sorted, (sample) => sample.endpoints.some((endpoint) => endpoint.pod === pod && isUnreadySelected(endpoint)) ? 'member' : 'breaks');
      for (const run of runs) findings.push(runFinding(app, pod, run));
    }
  }
  return invariantResult('maintpage.unreadyEndpointSelected', findings);
}

function isUnreadySelected(endpoint: EndpointSample['endpoints'][number]): boolean {
  return endpoint.ready && !endpoint.podReady && !endpoint.terminating;
}

function runFinding(app: string, pod: string, run: Run<EndpointSample>): Finding {
  return {
    at: run.first.at,
    evidence: `The Service of app ${app} selected pod ${pod} as ready while the pod was not Ready and not terminating, ${runText(run, 'sample')}`,
  };
}
