import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podsAwaitingRestore, servingPod } from './database-pods.ts';

interface PodOptions {
  ready?: boolean;
  appReady?: boolean;
  terminating?: boolean;
  phase?: string;
  ip?: string;
  created?: string;
}

function pod(name: string, options: PodOptions = {}): V1Pod {
  const { ready = true, appReady = false, terminating = false, phase = 'Running', ip = '10.0.0.1', created = '2026-01-02T03:00:00Z' } = options;
  return {
    metadata: {
      name,
      creationTimestamp: created as unknown as Date,
      labels: appReady ? { appReady: 'ok' } : {},
      ...(terminating ? { deletionTimestamp: '2026-01-02T03:10:00Z' as unknown as Date } : {}),
    },
    status: { phase, ...(ip === '' ? {} : { podIP: ip }), conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

describe('servingPod', () => {
  it('is the live pod labelled appReady=ok', () => {
    expect(servingPod([pod('new'), pod('old', { appReady: true })])?.metadata?.name).toBe('old');
  });

  it('is none while the labelled pod is not Ready, is terminating, or has no address', () => {
    expect(servingPod([pod('a', { appReady: true, ready: false })])).toBeUndefined();
    expect(servingPod([pod('a', { appReady: true, terminating: true })])).toBeUndefined();
    expect(servingPod([pod('a', { appReady: true, ip: '' })])).toBeUndefined();
    expect(servingPod([pod('a', { appReady: true, phase: 'Pending' })])).toBeUndefined();
  });
});

describe('podsAwaitingRestore', () => {
  it('are the live pods without the label, oldest first', () => {
    const pods = [pod('b', { created: '2026-01-02T03:02:00Z' }), pod('a', { created: '2026-01-02T03:01:00Z' }), pod('c', { appReady: true })];
    expect(podsAwaitingRestore(pods).map((p) => p.metadata?.name)).toEqual(['a', 'b']);
  });

  it('exclude pods whose server does not answer yet or that are going away', () => {
    expect(podsAwaitingRestore([pod('a', { ready: false }), pod('b', { terminating: true })])).toEqual([]);
  });
});
