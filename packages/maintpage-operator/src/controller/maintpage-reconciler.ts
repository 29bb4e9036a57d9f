import type { KubernetesObject, V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import {
  CONTROLLER_OWNER_INDEX,
  Resources,
  ownershipConflict,
  type DesiredObject,
  type EventRecorder,
  type Manager,
  type ObjectReconciler,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcileResult,
  type ResourceRef,
  type StatusWriter,
} from '@k8s-operators/controller-core';
import { MaintPageRef } from '../api/maintpage-ref.ts';
import type { MaintPage } from '../api/maintpage-resource.ts';
import { MaintPageReason } from '../api/maintpage-status-values.ts';
import { resolveMaintPage, type ResolvedMaintPage } from '../api/resolved-maintpage.ts';
import { desiredAppDeployment } from '../desired/desired-app-deployment.ts';
import { blockedOutcome, desiredMaintPageStatus, invalidSpecOutcome, switchLatencySeconds, type StatusOutcome } from '../desired/desired-maintpage-status.ts';
import { desiredMaintenanceDeployment } from '../desired/desired-maintenance-deployment.ts';
import { desiredPageHtmlConfigMap } from '../desired/desired-page-html.ts';
import { desiredService } from '../desired/desired-service.ts';
import { detectDrift } from '../desired/drift.ts';
import { appName, maintenanceDeploymentName, pageHtmlConfigMapName } from '../api/object-names.ts';
import { decideSwitch, type SwitchDecision } from '../desired/switch-decision.ts';
import { registerMaintPageMetrics, type MaintPageMetrics } from '../metrics/maintpage-metrics.ts';

export const FIELD_MANAGER = 'maintpage-operator';
/** While an object we would own belongs to someone else, look again this often (its events do not reach us). */
const CONFLICT_RECHECK_MS = 30_000;

/** Who reports the operator's Events. */
export const REPORTING_CONTROLLER = 'maintpage.example.com/maintpage-operator';

/** The objects a MaintPage owns, as the manager's caches hold them. */
interface OwnedObjects {
  appDeployment: V1Deployment | undefined;
  maintenanceDeployment: V1Deployment | undefined;
  service: V1Service | undefined;
  pageHtml: V1ConfigMap | undefined;
}

/** A kind of owned object and the names the MaintPage uses now. */
interface OwnedKind {
  ref: ResourceRef;
  names: string[];
}

/**
 * One MaintPage's reconcile, in named steps: resolve the spec (or report why it cannot be), read the owned objects
 * (or report who else owns one), apply the page and both Deployments, decide where the Service points and apply it,
 * report the switch, delete objects under names no longer used, write the status. Reads come from the manager's
 * caches, which show this process's own writes: a reconcile right after a status write keeps its switchWantedTime and
 * lastSwitchTime instead of computing from the status that write replaced.
 */
export class MaintPageReconciler implements ObjectReconciler<MaintPage> {
  readonly #manager: Manager;
  readonly #metrics: MaintPageMetrics;
  readonly #events: EventRecorder;
  readonly #statusWriter: StatusWriter;
  readonly #pageServerImage: string;
  readonly #now: () => Date;

  /** `pageServerImage`: the built-in page server's image, for MaintPages without a maintpageimage. */
  constructor(manager: Manager, options: { pageServerImage: string; now: () => Date }) {
    this.#manager = manager;
    this.#metrics = registerMaintPageMetrics(manager.metrics.registry);
    this.#events = manager.eventRecorderFor(REPORTING_CONTROLLER);
    this.#statusWriter = manager.statusWriter(FIELD_MANAGER);
    this.#pageServerImage = options.pageServerImage;
    this.#now = options.now;
  }

  async reconcile(maintPage: MaintPage, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    // Owned objects go with it (owner references).
    if (maintPage.metadata.deletionTimestamp) {
      this.gone(ctx.request);
      return undefined;
    }
    const resolution = resolveMaintPage(maintPage);
    if (!resolution.ok) return this.#reportInvalidSpec(maintPage, resolution.message);
    const resolved = resolution.maintPage;
    const owned = await this.#readOwned(resolved);
    const conflict = [owned.appDeployment, owned.maintenanceDeployment, owned.service, owned.pageHtml]
      .map((obj) => ownershipConflict(obj, maintPage))
      .find((c) => c !== undefined);
    if (conflict) return this.#reportConflict(maintPage, conflict);

    const pageHtml = await this.#applyPageAndDeployments(maintPage, resolved, owned);
    const decision = await this.#pointService(maintPage, resolved, owned);
    this.#reportSwitch(maintPage, decision, ctx);
    await this.#deleteOrphans(maintPage, [
      { ref: Resources.Deployment, names: [appName(resolved), maintenanceDeploymentName(resolved)] },
      { ref: Resources.Service, names: [appName(resolved)] },
      { ref: Resources.ConfigMap, names: pageHtml ? [pageHtmlConfigMapName(resolved)] : [] },
    ], ctx);
    await this.#writeStatus(maintPage, decision);
    return decision.requeueAfterMs === undefined ? undefined : { requeueAfterMs: decision.requeueAfterMs };
  }

  /** Deleted, or being deleted: forget its series. */
  gone(request: ReconcileRequest): void {
    this.#metrics.published.remove({ namespace: request.namespace ?? '', name: request.name });
  }

  async #reportInvalidSpec(maintPage: MaintPage, problem: string): Promise<undefined> {
    this.#events.event(maintPage, { type: 'Warning', reason: MaintPageReason.InvalidSpec, action: 'Validate', note: problem });
    await this.#writeStatus(maintPage, invalidSpecOutcome(maintPage, problem));
    return undefined;
  }

  async #reportConflict(maintPage: MaintPage, conflict: string): Promise<ReconcileResult> {
    this.#events.event(maintPage, { type: 'Warning', reason: MaintPageReason.Conflict, action: 'Adopt', note: conflict });
    await this.#writeStatus(maintPage, blockedOutcome(maintPage, MaintPageReason.Conflict, conflict));
    return { requeueAfterMs: CONFLICT_RECHECK_MS };
  }

  async #readOwned(resolved: ResolvedMaintPage): Promise<OwnedObjects> {
    const { reader } = this.#manager;
    const namespace = resolved.metadata.namespace ?? '';
    return {
      appDeployment: await reader.get(Resources.Deployment, { namespace, name: appName(resolved) }),
      maintenanceDeployment: await reader.get(Resources.Deployment, { namespace, name: maintenanceDeploymentName(resolved) }),
      service: await reader.get(Resources.Service, { namespace, name: appName(resolved) }),
      pageHtml: await reader.get(Resources.ConfigMap, { namespace, name: pageHtmlConfigMapName(resolved) }),
    };
  }

  /** Applies the page ConfigMap (when the MaintPage has a page), the maintenance Deployment and the app Deployment. */
  async #applyPageAndDeployments(maintPage: MaintPage, resolved: ResolvedMaintPage, owned: OwnedObjects): Promise<V1ConfigMap | undefined> {
    const pageHtml = desiredPageHtmlConfigMap(resolved);
    if (pageHtml) await this.#apply(maintPage, Resources.ConfigMap, pageHtml, owned.pageHtml);
    const maintenance = desiredMaintenanceDeployment(resolved, { pageServerImage: this.#pageServerImage });
    await this.#apply(maintPage, Resources.Deployment, maintenance, owned.maintenanceDeployment);
    await this.#apply(maintPage, Resources.Deployment, desiredAppDeployment(resolved, owned.appDeployment), owned.appDeployment);
    return pageHtml;
  }

  /** Decides which pods the Service selects, applies it, and reports what was put back after a change by hand. */
  async #pointService(maintPage: MaintPage, resolved: ResolvedMaintPage, owned: OwnedObjects): Promise<SwitchDecision> {
    const decision = decideSwitch(resolved, {
      appReadyReplicas: owned.appDeployment?.status?.readyReplicas ?? 0,
      maintenanceReadyReplicas: owned.maintenanceDeployment?.status?.readyReplicas ?? 0,
      service: owned.service,
    }, this.#now());
    const drift = detectDrift(resolved, { appDeployment: owned.appDeployment, service: owned.service }, decision.selector);
    await this.#apply(maintPage, Resources.Service, desiredService(resolved, decision.target), owned.service);
    for (const event of drift.events) this.#events.event(maintPage, { ...event, action: 'Revert', note: event.message });
    return decision;
  }

  #reportSwitch(maintPage: MaintPage, decision: SwitchDecision, ctx: ReconcileContext): void {
    const metrics = this.#metrics;
    const events = this.#events;
    const namespace = maintPage.metadata.namespace ?? '';
    const name = maintPage.metadata.name ?? '';
    if (decision.switched) {
      metrics.switchLatency.observe({ to: decision.switched.to }, switchLatencySeconds(maintPage, this.#now()));
      metrics.switches.inc({ namespace, name, to: decision.switched.to });
      events.event(maintPage, { type: 'Normal', reason: decision.switched.reason, action: 'Switch', note: decision.switched.message });
      ctx.log.info({ from: decision.switched.from, to: decision.switched.to }, decision.switched.message);
    }
    metrics.published.set({ namespace, name }, decision.target === 'maintenance' ? 1 : 0);
  }

  /** Objects this MaintPage controls under names it no longer uses (a renamed appname, a removed page) are deleted. */
  async #deleteOrphans(maintPage: MaintPage, keep: OwnedKind[], ctx: ReconcileContext): Promise<void> {
    const manager = this.#manager;
    const events = this.#events;
    const namespace = maintPage.metadata.namespace ?? '';
    for (const { ref, names } of keep) {
      for (const obj of await manager.reader.list(ref, { namespace, index: { name: CONTROLLER_OWNER_INDEX, value: maintPage.metadata.uid ?? '' } })) {
        const name = obj.metadata?.name ?? '';
        if (names.includes(name)) continue;
        ctx.log.info({ kind: ref.kind, object: name }, 'deleting an object the MaintPage no longer uses');
        await manager.client.delete(ref, { namespace, name }, { preconditions: { uid: obj.metadata?.uid ?? '' } });
        events.event(maintPage, { type: 'Normal', reason: 'Deleted', action: 'Delete', note: `deleted ${ref.kind} ${name}, which this MaintPage no longer uses` });
      }
    }
  }

  #apply<T extends KubernetesObject>(owner: MaintPage, ref: ResourceRef<T>, desired: DesiredObject<T>, current: T | undefined): Promise<T> {
    return this.#manager.applyOwned(ref, desired, { owner, fieldManager: FIELD_MANAGER, current });
  }

  /** Writes the status `outcome` leads to, only when it differs from the stored one. */
  async #writeStatus(maintPage: MaintPage, outcome: StatusOutcome): Promise<void> {
    const { status, changed } = desiredMaintPageStatus(maintPage, outcome, this.#now());
    if (changed) await this.#statusWriter.write(MaintPageRef, maintPage, status);
  }
}
