// The restart phase of the core benchmark: the same controller process started again over Widgets that are already
// converged, as after an operator's restart or leader change. Its informer lists every Widget and queues it; while
// that backlog drains (each reconcile waiting `externalCallMs` for the call most operators make to something outside
// the cluster), one Widget is edited, and what is measured is how long its reconcile waited: with the priority queue
// the listed Widgets wait behind the edit (controller-runtime's default since v0.23), without it the edit waits behind
// them. The Widget edited is the last one listed, so without priorities it waits for almost the whole backlog.
import { fork } from 'node:child_process';
import type { ControlPlane } from '@k8s-operators/testkit';
import type { KubeClient } from '@k8s-operators/controller-core';
import { nextReport } from './operator-reports.ts';
import { WidgetRef } from './widget-ref.ts';

export interface RestartFigures {
  priority_queue: boolean;
  /** From the edit's PATCH answered to its reconcile starting. */
  edit_wait_ms: number;
  /** Reconciles that started between the edit and the edited Widget's own. */
  reconciles_ahead_of_edit: number;
  /** From the manager's start to every listed Widget reconciled. */
  backlog_seconds: number;
}

export interface RestartSettings {
  namespace: string;
  objects: number;
  workers: number;
  externalCallMs: number;
  nodeFlags: readonly string[];
}

export async function measureRestartBacklog(controlPlane: ControlPlane, setup: KubeClient, operatorScript: string, settings: RestartSettings, usePriorityQueue: boolean): Promise<RestartFigures> {
  const { namespace, objects, workers, externalCallMs, nodeFlags } = settings;
  const child = fork(operatorScript, [namespace, String(objects), String(workers), usePriorityQueue ? 'restart-priority' : 'restart-fifo', String(externalCallMs)], {
    execPath: process.execPath,
    execArgv: [...nodeFlags],
    env: { ...process.env, KUBECONFIG: controlPlane.adminKubeconfig },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    // Every report is awaited from the start: the child sends them without waiting for the parent to listen.
    const backlog = nextReport(child, 'backlog');
    const drained = nextReport(child, 'drained');
    await backlog;
    const name = `widget-${String(objects - 1).padStart(5, '0')}`;
    const armed = nextReport(child, 'armed');
    const probe = nextReport(child, 'probe');
    child.send({ probe: `${namespace}/${name}` });
    await armed;
    await setup.patch(WidgetRef, { namespace, name }, { type: 'merge', patch: { spec: { color: 'edited' } } });
    const editedAt = Date.now();
    const { startedAt, reconcilesAhead } = await probe;
    const { seconds } = await drained;
    child.send('stop');
    const code = await exited;
    if (code !== 0) throw new Error(`the restarted controller process exited with code ${String(code)}`);
    // Put the Widget back, so a second restart starts from the same objects.
    await setup.patch(WidgetRef, { namespace, name }, { type: 'merge', patch: { spec: { color: (objects - 1) % 2 === 0 ? 'blue' : 'green' } } });
    return { priority_queue: usePriorityQueue, edit_wait_ms: Math.max(0, startedAt - editedAt), reconciles_ahead_of_edit: reconcilesAhead, backlog_seconds: Number(seconds.toFixed(2)) };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
