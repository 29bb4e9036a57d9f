// A complete operator: each Widget gets a ConfigMap holding its rendered message, and its Ready condition says
// whether that ConfigMap is in place. `node --conditions=source examples/configmap-widget.ts --crd` prints the CRD.
import { Type } from 'typebox';
import {
  AGE_COLUMN, Manager, READY_COLUMN, READY_CONDITION, REASON_COLUMN, Resources, TerminalError, asReconciler, customResourceRef, defineCustomResource,
  ownershipConflict, type ConditionStatus, type CustomResource, type EventRecorder, type ObjectReconciler, type ReconcileContext, type ReconcileResult,
  type StatusWriter,
} from '@k8s-operators/controller-core';
import { conditionsSchema, renderCrdYaml } from '@k8s-operators/controller-core/crd';

export const WidgetResource = defineCustomResource({
  group: 'example.k8s-operators.io',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1alpha1',
      // `{name}` and `{namespace}` in the message are replaced with the Widget's own.
      spec: Type.Object({ message: Type.String({ minLength: 1, maxLength: 4096 }) }),
      status: Type.Object({
        observedGeneration: Type.Optional(Type.Integer()),
        conditions: Type.Optional(conditionsSchema()),
      }),
      printerColumns: [READY_COLUMN, REASON_COLUMN, AGE_COLUMN],
    },
  ],
});
export type Widget = CustomResource<typeof WidgetResource>;
const WidgetRef = customResourceRef(WidgetResource);

if (process.argv.includes('--crd')) {
  process.stdout.write(renderCrdYaml(WidgetResource, { regenerateCommand: 'node --conditions=source examples/configmap-widget.ts --crd' }));
  process.exit(0);
}

/** Placeholders the controller cannot fill: the schema cannot say which are known, so the controller judges. */
function unknownPlaceholders(message: string): string[] {
  return [...message.matchAll(/\{\w+\}/g)].map(([placeholder]) => placeholder).filter((p) => p !== '{name}' && p !== '{namespace}');
}

/**
 * The Widget reconciler, as controller-runtime's ObjectReconciler: `asReconciler` reads the Widget from the manager's
 * cache and calls `reconcile` with it; a deleted Widget needs nothing (the garbage collector deletes its ConfigMap,
 * which the owner reference ties to it), so there is no `gone`.
 */
class WidgetReconciler implements ObjectReconciler<Widget> {
  readonly #manager: Manager;
  readonly #statusWriter: StatusWriter;
  readonly #events: EventRecorder;

  constructor(manager: Manager) {
    this.#manager = manager;
    this.#statusWriter = manager.statusWriter(manager.name);
    // One recorder per reporting controller, reporting as this Pod (POD_NAME, else the hostname).
    this.#events = manager.eventRecorderFor('example.k8s-operators.io/widget-operator');
  }

  async reconcile(widget: Widget, { request, log }: ReconcileContext): Promise<ReconcileResult | undefined> {
    const unknown = unknownPlaceholders(widget.spec.message);
    if (unknown.length > 0) {
      const problem = `spec.message uses ${unknown.join(', ')}; only {name} and {namespace} are known`;
      await this.#setReady(widget, 'False', 'InvalidMessage', problem);
      this.#events.event(widget, { type: 'Warning', reason: 'InvalidMessage', action: 'Render', note: problem });
      // Retrying cannot fix bad input: not retried until the Widget changes.
      throw new TerminalError(problem);
    }

    // Reads come from the manager's caches (the ones for() and owns() watch): no request to the API server.
    const current = await this.#manager.reader.get(Resources.ConfigMap, request);
    const conflict = ownershipConflict(current, widget);
    if (conflict !== undefined) {
      await this.#setReady(widget, 'False', 'Conflict', conflict);
      this.#events.event(widget, { type: 'Warning', reason: 'Conflict', action: 'ApplyConfigMap', note: conflict });
      // A ConfigMap we do not own queues nothing for us when it goes away: look again in a minute.
      return { requeueAfterMs: 60_000 };
    }

    const name = widget.metadata.name ?? '';
    const namespace = widget.metadata.namespace ?? '';
    const message = widget.spec.message.replaceAll('{name}', name).replaceAll('{namespace}', namespace);
    const desired = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { message } };
    // Sends nothing when the cached ConfigMap already is as desired; takes it back when someone else changed it.
    const applied = await this.#manager.applyOwned(Resources.ConfigMap, desired, { owner: widget, fieldManager: this.#manager.name, current });
    if (applied !== current) {
      log.info({ configMap: name }, 'ConfigMap applied');
      this.#events.event(widget, { type: 'Normal', reason: 'ConfigMapApplied', action: 'ApplyConfigMap', note: `ConfigMap ${name} holds the message` });
    }
    await this.#setReady(widget, 'True', 'ConfigMapReady', `ConfigMap ${name} holds the message`);
    return undefined;
  }

  /** Sends nothing when the status already says this, so a no-op reconcile costs no request. */
  #setReady(widget: Widget, status: ConditionStatus, reason: string, message: string): Promise<Widget> {
    return this.#statusWriter.writeConditions(WidgetRef, widget, {
      observedGeneration: widget.metadata.generation,
      conditions: [{ type: READY_CONDITION, status, reason, message }],
    });
  }
}

// Defaults: kubeconfig from KUBECONFIG or in-cluster, all namespaces, leader election on, probes on :8081, metrics on :8080.
const manager = await Manager.create({ name: 'widget-operator' });
manager
  .controller('widget')
  .for(WidgetRef)
  .owns(Resources.ConfigMap)
  .complete(asReconciler(manager.reader, WidgetRef, new WidgetReconciler(manager)));

// SIGTERM: stop taking work, finish reconciles in flight, release the lease, exit 0.
await manager.runUntilSignalled();
