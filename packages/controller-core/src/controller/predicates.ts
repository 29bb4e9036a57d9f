import type { KubernetesObject } from '@kubernetes/client-node';
import { matchesLabels } from '../objects/labels.ts';

/**
 * Filters events before they queue a reconcile, as controller-runtime's predicates. A missing method lets that kind
 * of event through.
 */
export interface Predicate<T extends KubernetesObject = KubernetesObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

/**
 * Only spec changes (metadata.generation moves on spec writes for CRDs with a status subresource), so the
 * controller's own status writes do not wake it. As in controller-runtime, a status wiped by someone else is not
 * seen: use it on `for()` resources whose status is the controller's alone.
 */
export function generationChanged(): Predicate {
  return { update: (oldObj, newObj) => oldObj.metadata?.generation !== newObj.metadata?.generation };
}

export function resourceVersionChanged(): Predicate {
  return { update: (oldObj, newObj) => oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion };
}

const sameMap = (a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean => {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b ?? {}).length && ka.every((k) => a?.[k] === b?.[k]);
};

export function labelsChanged(): Predicate {
  return { update: (oldObj, newObj) => !sameMap(oldObj.metadata?.labels, newObj.metadata?.labels) };
}

export function annotationsChanged(): Predicate {
  return { update: (oldObj, newObj) => !sameMap(oldObj.metadata?.annotations, newObj.metadata?.annotations) };
}

/** Objects whose labels match an equality-based selector (`{ app: 'web' }`). */
export function hasLabels(selector: Readonly<Record<string, string>>): Predicate {
  const matches = (obj: KubernetesObject): boolean => matchesLabels(obj, selector);
  return { create: matches, update: (oldObj, newObj) => matches(oldObj) || matches(newObj), delete: matches };
}

type EventKind = 'create' | 'update' | 'delete';

function passes<T extends KubernetesObject>(p: Predicate<T>, kind: EventKind, objs: [T, T?]): boolean {
  switch (kind) {
    case 'create': return p.create ? p.create(objs[0]) : true;
    case 'update': return p.update ? p.update(objs[0], objs[1] ?? objs[0]) : true;
    case 'delete': return p.delete ? p.delete(objs[0]) : true;
  }
}

export function and<T extends KubernetesObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => predicates.every((p) => passes(p, 'create', [o])),
    update: (a, b) => predicates.every((p) => passes(p, 'update', [a, b])),
    delete: (o) => predicates.every((p) => passes(p, 'delete', [o])),
  };
}

export function or<T extends KubernetesObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => predicates.some((p) => passes(p, 'create', [o])),
    update: (a, b) => predicates.some((p) => passes(p, 'update', [a, b])),
    delete: (o) => predicates.some((p) => passes(p, 'delete', [o])),
  };
}

export function not<T extends KubernetesObject>(predicate: Predicate<T>): Predicate<T> {
  return {
    create: (o) => !passes(predicate, 'create', [o]),
    update: (a, b) => !passes(predicate, 'update', [a, b]),
    delete: (o) => !passes(predicate, 'delete', [o]),
  };
}

/** Whether an event passes every predicate (an empty list lets everything through). */
export function admits<T extends KubernetesObject>(predicates: readonly Predicate<T>[], kind: EventKind, obj: T, oldObj?: T): boolean {
  return predicates.every((p) => passes(p, kind, kind === 'update' ? [oldObj ?? obj, obj] : [obj]));
}
