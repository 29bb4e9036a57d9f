import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { InformerLogger, SharedInformer } from '../src/informer/shared-informer.ts';

/** One handler notification, reduced to what the tests compare. */
export interface RecordedEvent {
  type: 'add' | 'update' | 'delete';
  name: string;
  /** add: isInInitialList; delete: deletedFinalStateUnknown. */
  flag?: boolean;
  /** update: resourceVersion before and after. */
  oldResourceVersion?: string;
  resourceVersion: string | undefined;
  oldObject?: KubernetesObject;
  object: KubernetesObject;
}

/** Subscribes to an informer and keeps every notification in order. */
export function recordEvents<T extends KubernetesObject>(informer: SharedInformer<T>): { events: RecordedEvent[]; stop: () => void } {
  const events: RecordedEvent[] = [];
  const nameOf = (obj: KubernetesObject): string => obj.metadata?.name ?? '';
  const stop = informer.addEventHandler({
    onAdd: (obj, { isInInitialList }) =>
      events.push({ type: 'add', name: nameOf(obj), flag: isInInitialList, resourceVersion: obj.metadata?.resourceVersion, object: obj }),
    onUpdate: (oldObj, newObj) =>
      events.push({
        type: 'update',
        name: nameOf(newObj),
        oldResourceVersion: oldObj.metadata?.resourceVersion,
        resourceVersion: newObj.metadata?.resourceVersion,
        oldObject: oldObj,
        object: newObj,
      }),
    onDelete: (obj, { deletedFinalStateUnknown }) =>
      events.push({ type: 'delete', name: nameOf(obj), flag: deletedFinalStateUnknown, resourceVersion: obj.metadata?.resourceVersion, object: obj }),
  });
  return { events, stop };
}

/** A real pino logger whose lines are kept for assertions instead of printed. */
export function recordingLogger(): { logger: InformerLogger; lines: { level: number; msg: string; [field: string]: unknown }[] } {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) });
  return { logger, lines };
}
