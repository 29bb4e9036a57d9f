import type { KubeClient } from '@k8s-operators/controller-core';
import { describe, expect, it } from 'vitest';
import { serializeBackupJobResult } from '../backup-job/backup-job-contract.ts';
import { jobOutcome, type BackupJob } from './backup-jobs.ts';

type Pod = Parameters<typeof jobOutcome>[2][number];
type Terminated = NonNullable<NonNullable<NonNullable<Pod['status']>['containerStatuses']>[number]['state']>['terminated'];

const job = (conditions: { type: string; status?: string; lastTransitionTime?: string }[] = [], extra: { completionTime?: string } = {}): BackupJob => ({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { namespace: 'shop', name: 'foodb-backup-1' },
  status: { startTime: new Date('2026-11-26T10:00:00Z'), ...(extra.completionTime === undefined ? {} : { completionTime: new Date(extra.completionTime) }), conditions: conditions.map((c) => ({ status: 'True', ...c, lastTransitionTime: c.lastTransitionTime === undefined ? undefined : new Date(c.lastTransitionTime) })) },
});

const pod = (state: { running?: object; terminated?: Terminated }, container = 'backup'): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'shop', name: 'foodb-backup-1-abcde' },
  status: { containerStatuses: [{ name: container, image: 'op', imageID: '', ready: false, restartCount: 0, state }] },
});

const completed = serializeBackupJobResult({ result: 'Completed', sha256: 'ab'.repeat(32), size: 1234 });
const failed = serializeBackupJobResult({ result: 'Failed', stage: 'Dump', error: 'backup shop/foodb/foodb-backup-1: pg_dump failed: connection refused' });
const ended = (exitCode: number, message: string | undefined): Terminated => ({ exitCode, message, finishedAt: new Date('2026-11-26T10:00:09Z') });

/** Only the failure path reads the API (the Pods, when the cache lacks the container's end); these tests give it these Pods. */
const client = (pods: Pod[] = []): KubeClient => ({ list: () => Promise.resolve({ items: pods }) }) as unknown as KubeClient;

describe('jobOutcome', () => {
  it('is not finished while the container runs and the Job has no condition', async () => {
    expect(await jobOutcome(client(), job(), [pod({ running: {} })])).toEqual({ finished: false });
    expect(await jobOutcome(client(), job(), [])).toEqual({ finished: false });
  });

  it('takes a success from the Pod as soon as the container exited 0 with a Completed message, before the Job says so', async () => {
    expect(await jobOutcome(client(), job(), [pod({ terminated: ended(0, completed) })])).toEqual({ finished: true, succeeded: true, seconds: 9 });
  });

  it('waits for the Job when the exit is not a Completed backup: another exit code, no message, or another container', async () => {
    expect(await jobOutcome(client(), job(), [pod({ terminated: ended(1, failed) })])).toEqual({ finished: false });
    expect(await jobOutcome(client(), job(), [pod({ terminated: ended(0, undefined) })])).toEqual({ finished: false });
    expect(await jobOutcome(client(), job(), [pod({ terminated: ended(0, 'not json') })])).toEqual({ finished: false });
    expect(await jobOutcome(client(), job(), [pod({ terminated: ended(0, completed) }, 'sidecar')])).toEqual({ finished: false });
  });

  it('takes the Job controller\'s word when it has one, timed to its completion', async () => {
    expect(await jobOutcome(client(), job([{ type: 'Complete' }], { completionTime: '2026-11-26T10:00:10Z' }), [])).toEqual({ finished: true, succeeded: true, seconds: 10 });
  });

  it('reports a failed Job in its own words from the termination message', async () => {
    const failedPod = pod({ terminated: ended(1, failed) });
    const outcome = await jobOutcome(client([failedPod]), job([{ type: 'Failed', lastTransitionTime: '2026-11-26T10:00:11Z' }]), [failedPod]);
    expect(outcome).toEqual({ finished: true, succeeded: false, seconds: 11, error: 'backup shop/foodb/foodb-backup-1: pg_dump failed: connection refused' });
  });

  it('gives a Job that found no client tools of the server\'s major (stage Tools) the reason PgToolMissing', async () => {
    const error = 'backup shop/foodb/foodb-backup-1: no usable client tools for PostgreSQL 16.4: pg_dump 16 is needed …';
    const noTool = pod({ terminated: ended(1, serializeBackupJobResult({ result: 'Failed', stage: 'Tools', error })) });
    const outcome = await jobOutcome(client([noTool]), job([{ type: 'Failed', lastTransitionTime: '2026-11-26T10:00:11Z' }]), [noTool]);
    expect(outcome).toEqual({ finished: true, succeeded: false, seconds: 11, error, reason: 'PgToolMissing' });
  });

  it('reads the failed Pod from the API server when the cache does not have its end yet', async () => {
    const failedPod = pod({ terminated: ended(1, failed) });
    const outcome = await jobOutcome(client([failedPod]), job([{ type: 'Failed', lastTransitionTime: '2026-11-26T10:00:11Z' }]), [pod({ running: {} })]);
    expect(outcome).toEqual({ finished: true, succeeded: false, seconds: 11, error: 'backup shop/foodb/foodb-backup-1: pg_dump failed: connection refused' });
  });

  it('does not take a Completed message over the Job\'s Failed condition', async () => {
    const confused = pod({ terminated: ended(0, completed) });
    const outcome = await jobOutcome(client([confused]), job([{ type: 'Failed', lastTransitionTime: '2026-11-26T10:00:11Z' }]), [confused]);
    expect(outcome).toMatchObject({ finished: true, succeeded: false });
  });
});
