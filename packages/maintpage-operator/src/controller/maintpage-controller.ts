import type { KubernetesObject } from '@kubernetes/client-node';
import {
  CONTROLLER_OWNER_INDEX,
  Resources,
  generationChanged,
  ownershipConflict,
  type Controller,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
  type ResourceRef,
} from '@k8s-operators/controller-core';
import { MaintPageRef } from '../api/maintpage-ref.ts';
import type { MaintPage } from '../api/maintpage-resource.ts';
import { resolveMaintPage } from '../api/resolved-maintpage.ts';
import { MaintPageReason } from '../api/maintpage-status-values.ts';
import { desiredAppDeployment } from '../desired/desired-app-deployment.ts';
import { desiredMaintenanceDeployment } from '../desired/desired-maintenance-deployment.ts';
import { desiredPageHtmlConfigMap } from '../desired/desired-page-html.ts';
import { desiredService } from '../desired/desired-service.ts';
import { blockedOutcome, desiredStatus, invalidSpecOutcome, switchLatencySeconds, type StatusOutcome } from '../desired/desired-status.ts';
import { detectDrift } from './drift.ts';
import { registerMaintPageMetrics } from '../metrics/maintpage-metrics.ts';
import { appName, maintenanceDeploymentName, pageHtmlConfigMapName } from '../desired/object-names.ts';
import { decideSwitch } from '../desired/switch-decision.ts';

export const FIELD_MANAGER = 'maintpage-operator';
/** While an object we would own belongs to someone else, look again this often (its events do not reach us). */
const CONFLICT_RECHECK_MS = 30_000;

export interface MaintPageControllerOptions {
  /** The built-in page server's image, used when a MaintPage has no maintpageimage. */
  pageServerImage: string;
  /** The clock, for schedule windows (tests). */
  now?: () => Date;
}

/** A kind of owned object and the names the MaintPage uses now. */
interface OwnedKind {
  ref: ResourceRef;
  names: string[];
}

/**
 * Registers the MaintPage controller: it owns the app Deployment and Service (named appname), the maintenance page
 * Deployment and its page ConfigMap, applies them only when they differ, points the Service at Ready pods only, puts
 * hand-made changes back, and reports what it did in status, Events and metrics.
 */
export function setupMaintPageController(manager: Manager, options: MaintPageControllerOptions): Controller {
  const now = options.now ?? ((): Date => new Date());
  const metrics = registerMaintPageMetrics(manager.metrics.registry);
  const events = manager.eventRecorderFor('maintpage.example.com/maintpage-operator');
  const statusWriter = manager.statusWriter(FIELD_MANAGER);
  // Reads come from the caches the controller's for() and owns() watch, and show this process's own status writes the
  // caches do not show yet: a reconcile right after a status write keeps its switchWantedTime and lastSwitchTime
  // instead of computing from the status that write replaced.
  const { reader } = manager;

  const reconcile = async (ctx: ReconcileContext): Promise<ReconcileResult | undefined> => {
    const maintPage: MaintPage | undefined = await reader.get(MaintPageRef, ctx.request);
    if (!maintPage || maintPage.metadata.deletionTimestamp) {
      // Owned objects go with it (owner references); forget its series.
      metrics.published.remove({ namespace: ctx.request.namespace ?? '', name: ctx.request.name });
      return undefined;
    }
    const namespace = maintPage.metadata.namespace ?? '';
    const writeStatus = async (outcome: StatusOutcome): Promise<void> => {
      const { status, changed } = desiredStatus(maintPage, outcome, now());
      if (changed) await statusWriter.write(MaintPageRef, maintPage, status);
    };

    const resolution = resolveMaintPage(maintPage);
    if ('problem' in resolution) {
      const { problem } = resolution;
      events.event(maintPage, { type: 'Warning', reason: MaintPageReason.InvalidSpec, action: 'Validate', note: problem });
      await writeStatus(invalidSpecOutcome(maintPage, problem));
      return undefined;
    }
    const resolved = resolution.maintPage;

    const cached = {
      appDeployment: await reader.get(Resources.Deployment, { namespace, name: appName(resolved) }),
      maintenanceDeployment: await reader.get(Resources.Deployment, { namespace, name: maintenanceDeploymentName(resolved) }),
      service: await reader.get(Resources.Service, { namespace, name: appName(resolved) }),
      pageHtml: await reader.get(Resources.ConfigMap, { namespace, name: pageHtmlConfigMapName(resolved) }),
    };
    const conflict = Object.values(cached).map((obj) => ownershipConflict(obj, maintPage)).find((c) => c !== undefined);
    if (conflict) {
      events.event(maintPage, { type: 'Warning', reason: MaintPageReason.Conflict, action: 'Adopt', note: conflict });
      await writeStatus(blockedOutcome(maintPage, MaintPageReason.Conflict, conflict));
      return { requeueAfterMs: CONFLICT_RECHECK_MS };
    }

    const apply = <T extends KubernetesObject>(ref: ResourceRef<T>, desired: KubernetesObject, current: T | undefined): Promise<T> =>
      manager.applyOwned(ref, desired as never, { owner: maintPage, fieldManager: FIELD_MANAGER, current });
    const pageHtml = desiredPageHtmlConfigMap(resolved);
    if (pageHtml) await apply(Resources.ConfigMap, pageHtml, cached.pageHtml);
    await apply(Resources.Deployment, desiredMaintenanceDeployment(resolved, { pageServerImage: options.pageServerImage }), cached.maintenanceDeployment);
    await apply(Resources.Deployment, desiredAppDeployment(resolved, cached.appDeployment), cached.appDeployment);

    const decision = decideSwitch(resolved, {
      appReadyReplicas: cached.appDeployment?.status?.readyReplicas ?? 0,
      maintenanceReadyReplicas: cached.maintenanceDeployment?.status?.readyReplicas ?? 0,
      service: cached.service,
    }, now());
    const drift = detectDrift(resolved, { appDeployment: cached.appDeployment, service: cached.service }, decision.selector);
    await apply(Resources.Service, desiredService(resolved, decision.target), cached.service);
    for (const event of drift.events) events.event(maintPage, { ...event, action: 'Revert', note: event.message });

    if (decision.switched) {
      metrics.switchLatency.observe({ to: decision.switched.to }, switchLatencySeconds(maintPage, now()));
      metrics.switches.inc({ namespace, name: maintPage.metadata.name ?? '', to: decision.switched.to });
      events.event(maintPage, { type: 'Normal', reason: decision.switched.reason, action: 'Switch', note: decision.switched.message });
      ctx.log.info({ from: decision.switched.from, to: decision.switched.to }, decision.switched.message);
    }
    metrics.published.set({ namespace, name: maintPage.metadata.name ?? '' }, decision.target === 'maintenance' ? 1 : 0);

    await deleteOrphans(maintPage, [
      { ref: Resources.Deployment, names: [appName(resolved), maintenanceDeploymentName(resolved)] },
      { ref: Resources.Service, names: [appName(resolved)] },
      { ref: Resources.ConfigMap, names: pageHtml ? [pageHtmlConfigMapName(resolved)] : [] },
    ], ctx);
    await writeStatus(decision);
    return decision.requeueAfterMs === undefined ? undefined : { requeueAfterMs: decision.requeueAfterMs };
  };

  /** Objects this MaintPage controls under names it no longer uses (a renamed appname, a removed page) are deleted. */
  const deleteOrphans = async (maintPage: MaintPage, keep: OwnedKind[], ctx: ReconcileContext): Promise<void> => {
    const namespace = maintPage.metadata.namespace ?? '';
    for (const { ref, names } of keep) {
      for (const obj of await reader.list(ref, { namespace, index: { name: CONTROLLER_OWNER_INDEX, value: maintPage.metadata.uid ?? '' } })) {
        const name = obj.metadata?.name ?? '';
        if (names.includes(name)) continue;
        ctx.log.info({ kind: ref.kind, object: name }, 'deleting an object the MaintPage no longer uses');
        await manager.client.delete(ref, { namespace, name }, { preconditions: { uid: obj.metadata?.uid ?? '' } });
        events.event(maintPage, { type: 'Normal', reason: 'Deleted', action: 'Delete', note: `deleted ${ref.kind} ${name}, which this MaintPage no longer uses` });
      }
    }
  };

  return manager
    .controller('maintpage')
    .for(MaintPageRef, { predicates: [generationChanged()] })
    .owns(Resources.Deployment)
    .owns(Resources.Service)
    .owns(Resources.ConfigMap)
    .complete(reconcile);
}
