import { Resources, asReconciler, generationChanged, type Controller, type Manager } from '@k8s-operators/controller-core';
import { MaintPageRef } from '../api/maintpage-ref.ts';
import { MaintPageReconciler } from './maintpage-reconciler.ts';

export { FIELD_MANAGER } from './maintpage-reconciler.ts';

export interface MaintPageControllerOptions {
  /** The built-in page server's image, used when a MaintPage has no maintpageimage. */
  pageServerImage: string;
  /** The clock, for schedule windows (tests). */
  now?: () => Date;
}

/**
 * Registers the MaintPage controller: it owns the app Deployment and Service (named appname), the maintenance page
 * Deployment and its page ConfigMap, applies them only when they differ, points the Service at Ready pods only, puts
 * hand-made changes back, and reports what it did in status, Events and metrics (MaintPageReconciler).
 */
export function setupMaintPageController(manager: Manager, options: MaintPageControllerOptions): Controller {
  const reconciler = new MaintPageReconciler(manager, {
    pageServerImage: options.pageServerImage,
    now: options.now ?? ((): Date => new Date()),
  });
  return manager
    .controller('maintpage')
    .for(MaintPageRef, { predicates: [generationChanged()] })
    .owns(Resources.Deployment)
    .owns(Resources.Service)
    .owns(Resources.ConfigMap)
    .complete(asReconciler(manager.reader, MaintPageRef, reconciler));
}
