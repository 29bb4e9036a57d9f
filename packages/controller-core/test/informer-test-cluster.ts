import { afterAll, beforeAll } from 'vitest';
import type { KubeClient } from '../src/client/kube-client.ts';
import { SharedInformerFactory } from '../src/informer/informer-factory.ts';
import { startTestCluster, type TestCluster } from './client-test-cluster.ts';
import { recordingLogger } from './informer-test-recorder.ts';

type FactoryOptions = ConstructorParameters<typeof SharedInformerFactory>[1];

/** What an informer test file reads its cluster, client, log and factories from, once its beforeAll has run. */
export interface InformerTestCluster {
  readonly cluster: TestCluster;
  readonly client: KubeClient;
  /** Every line the factories' informers logged. */
  readonly log: ReturnType<typeof recordingLogger>;
  /** A factory logging to `log`, stopped after all tests, so a failing test leaves no watch running. */
  readonly newFactory: (options?: FactoryOptions) => SharedInformerFactory;
}

/** Starts a test cluster for the calling file (beforeAll) and stops its factories, then it, after all its tests. */
export function useInformerTestCluster(): InformerTestCluster {
  const log = recordingLogger();
  const factories: SharedInformerFactory[] = [];
  let cluster: TestCluster | undefined;
  beforeAll(async () => {
    cluster = await startTestCluster();
  });
  afterAll(async () => {
    await Promise.all(factories.map((factory) => factory.stop()));
    await cluster?.stop();
  });
  const started = (): TestCluster => {
    if (!cluster) throw new Error('useInformerTestCluster: the cluster starts in beforeAll; use it inside a test or hook');
    return cluster;
  };
  return {
    get cluster() { return started(); },
    get client() { return started().client; },
    log,
    newFactory: (options = {}) => {
      const factory = new SharedInformerFactory(started().client, { logger: log.logger, ...options });
      factories.push(factory);
      return factory;
    },
  };
}
