// What the real Prometheus sees while the run goes on: each operator's work queue depth, and every alert of the shipped
// rules that fires (merged into one firing while it keeps being reported).
import type { RunningPrometheus } from '@k8s-operators/testkit';
import { repeat } from '../loop.ts';
import type { Recorder } from '../recorder.ts';
import { OPERATORS, type AlertFiring, type OperatorName } from '../timeline.ts';

/** A firing not seen for this long has ended; seen again later, it is a new firing. */
const FIRING_GAP_MS = 60_000;

export async function queueDepths(prometheus: RunningPrometheus): Promise<Record<OperatorName, number>> {
  const depths = { 'maintpage-operator': 0, 'postgresql-operator': 0, 'nutanix-ahvvm-operator': 0 };
  for (const { metric, value } of await prometheus.query('sum by (job) (workqueue_depth)')) {
    const job = metric.job as OperatorName | undefined;
    if (job !== undefined && OPERATORS.includes(job)) depths[job] = value;
  }
  return depths;
}

export function observePrometheus(prometheus: RunningPrometheus, recorder: Recorder, signal: AbortSignal, onError: (what: string, error: unknown) => void): Promise<void> {
  const open = new Map<string, AlertFiring>();
  const alerts = repeat(signal, 10_000, async () => {
    const at = Date.now();
    for (const alert of await prometheus.alerts()) {
      if (alert.state !== 'firing') continue;
      const { alertname = '', ...labels } = alert.labels;
      const key = JSON.stringify(alert.labels);
      const current = open.get(key);
      if (current && at - current.lastSeenAt <= FIRING_GAP_MS) {
        current.lastSeenAt = at;
      } else {
        const firing: AlertFiring = { alert: alertname, labels, firstSeenAt: at, lastSeenAt: at };
        open.set(key, firing);
        recorder.alerts.push(firing);
      }
    }
  }, (error) => { onError('reading Prometheus alerts', error); });
  const queues = repeat(signal, 15_000, async () => {
    const at = Date.now();
    const depths = await queueDepths(prometheus);
    for (const operator of OPERATORS) recorder.queueDepth.push({ operator, at, depth: depths[operator] });
  }, (error) => { onError('reading work queue depths', error); });
  return Promise.all([alerts, queues]).then(() => undefined);
}
