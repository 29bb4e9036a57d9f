import { describe, expect, test } from 'vitest';
import type { E2eCluster } from './e2e.ts';
import { scrapeOperatorWithPrometheus } from './e2e-prometheus.ts';
import { operatorPermissions } from './e2e-permissions.ts';
import { refusedByRbac, unusedPermissions, type Permission } from './rbac-usage.ts';

export interface OperatorChecks {
  /** The spec's cluster, opened in its beforeAll. */
  cluster: () => E2eCluster;
  /** As in deploy/<operator>. */
  operator: string;
  /** A counter of the operator's own that the spec's stories made grow, e.g. `maintpage_switches_total`. */
  ownCounter: string;
  /**
   * Other Services of the operator's that a ServiceMonitor of its selects (the same port name and reader role), each
   * with a series of theirs that the stories made non-zero.
   */
  alsoScrapes?: readonly { service: string; series: string }[];
  /** Permissions the roles grant that a run may leave unused, each with the reason. */
  mayBeUnused: Readonly<Record<Permission, string>>;
}

/**
 * The checks every operator's e2e spec ends with, after its stories have made the operator work: a real Prometheus
 * scrapes it as its ServiceMonitor does (and is refused without a token or a binding), and its roles grant nothing it
 * did not use. Registers the two describe blocks where it is called.
 */
export function describeOperatorChecks(checks: OperatorChecks): void {
  const { operator, ownCounter, mayBeUnused, alsoScrapes = [] } = checks;
  describe('metrics', () => {
    test('a real Prometheus scrapes the operator as its ServiceMonitor does; a scrape with no token or no binding is refused', async (context) => {
      const cluster = checks.cluster();
      if (!cluster.podNetworkFromHost) {
        context.skip('the Prometheus runs on this machine, which has no route to Pod addresses (kind/e2e.sh adds one where it may)');
        return;
      }
      const scrape = await scrapeOperatorWithPrometheus(cluster, operator, [...new Set(alsoScrapes.map((also) => also.service))]);
      try {
        expect(scrape.refusals.noToken).toContain('401');
        expect(scrape.refusals.noBinding).toContain('403');
        expect(await scrape.total('controller_runtime_reconcile_total{result="success"}')).toBeGreaterThan(0);
        expect(await scrape.total('workqueue_depth')).toBeDefined();
        expect(await scrape.total('leader_election_master_status')).toBe(1);
        expect(await scrape.total(ownCounter)).toBeGreaterThan(0);
        for (const { series } of alsoScrapes) expect(await scrape.total(series), series).toBeGreaterThan(0);
      } finally {
        await scrape.stop();
      }
    });
  });

  describe('least privilege', () => {
    test('the operator used every permission its roles grant (and could do its work with no more)', async (context) => {
      const permissions = await operatorPermissions(checks.cluster(), operator);
      if (permissions === undefined) {
        context.skip('this cluster keeps no audit log this machine can read (a kind cluster from kindest/node)');
        return;
      }
      expect(refusedByRbac(permissions.requests)).toEqual([]);
      expect(unusedPermissions(permissions.rules, permissions.requests, mayBeUnused)).toEqual([]);
    });
  });
}
