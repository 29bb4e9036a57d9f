import type {
  EventsV1Event,
  KubernetesObject,
  V1ConfigMap,
  V1CustomResourceDefinition,
  V1Deployment,
  V1EndpointSlice,
  V1Job,
  V1Lease,
  V1Namespace,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
  V1Service,
  V1ServiceAccount,
} from '@kubernetes/client-node';

/**
 * The plain-object form of a client-node model. client-node declares its models as classes, but objects from the API
 * are plain JSON; as classes, spreading them (`{ ...pod, metadata: { ...pod.metadata } }`) trips typescript-eslint's
 * `no-misused-spread`. Structurally the two are the same type. `Date` stays `Date` to remain assignable to client-node's
 * `KubernetesObject`, but note that on the wire — and so in what this client returns — timestamps are RFC 3339 strings.
 */
export type Plain<T> = T extends Date
  ? T
  : T extends (infer U)[]
    ? Plain<U>[]
    : T extends object
      ? { [K in keyof T]: Plain<T[K]> }
      : T;

/** The object type of a resource ref: `ObjectOf<typeof Resources.Pod>`. */
export type ObjectOf<R> = R extends ResourceRef<infer T> ? T : never;

/**
 * Where a kind lives in the API, enough to build every URL without generated code: the group/version/resource of
 * client-go's `schema.GroupVersionResource`, plus the kind (list items carry none, SSA bodies need it) and the scope.
 *
 * `T` is the object type the client returns for this resource. Objects are the JSON the API server sent: where
 * client-node's models type a timestamp as `Date`, the value is the RFC 3339 string from the wire.
 */
export interface ResourceRef<T extends KubernetesObject = KubernetesObject> {
  /** API group; '' for the core group (`v1`). */
  readonly group: string;
  readonly version: string;
  /** Plural lower-case resource name, as in the URL (`configmaps`). */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** Type-level only: carries `T` so verbs infer the object type from the ref. Never set. */
  readonly objectType?: T;
}

/** Declares a resource, typically a custom one: `defineResource<MyKind>({ group: 'example.com', ... })`. */
export function defineResource<T extends KubernetesObject = KubernetesObject>(
  ref: Omit<ResourceRef, 'objectType'>,
): ResourceRef<T> {
  return Object.freeze({ group: ref.group, version: ref.version, resource: ref.resource, kind: ref.kind, namespaced: ref.namespaced });
}

/** `v1` for the core group, otherwise `group/version`. */
export function apiVersionOf(ref: ResourceRef): string {
  return ref.group === '' ? ref.version : `${ref.group}/${ref.version}`;
}

/** The GroupResource in Kubernetes' own notation (`configmaps`, `deployments.apps`), used in logs and metric labels. */
export function groupResourceOf(ref: ResourceRef): string {
  return ref.group === '' ? ref.resource : `${ref.resource}.${ref.group}`;
}

/** The built-in kinds our operators read and write. */
export const Resources = Object.freeze({
  Namespace: defineResource<Plain<V1Namespace>>({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false }),
  Pod: defineResource<Plain<V1Pod>>({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }),
  Service: defineResource<Plain<V1Service>>({ group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true }),
  ConfigMap: defineResource<Plain<V1ConfigMap>>({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true }),
  Secret: defineResource<Plain<V1Secret>>({ group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true }),
  ServiceAccount: defineResource<Plain<V1ServiceAccount>>({
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
  }),
  PersistentVolumeClaim: defineResource<Plain<V1PersistentVolumeClaim>>({
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
  }),
  Deployment: defineResource<Plain<V1Deployment>>({ group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true }),
  Job: defineResource<Plain<V1Job>>({ group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true }),
  /** `events.k8s.io/v1`, the Event API controller-runtime's current recorder writes. */
  Event: defineResource<Plain<EventsV1Event>>({ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true }),
  Lease: defineResource<Plain<V1Lease>>({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true }),
  EndpointSlice: defineResource<Plain<V1EndpointSlice>>({
    group: 'discovery.k8s.io',
    version: 'v1',
    resource: 'endpointslices',
    kind: 'EndpointSlice',
    namespaced: true,
  }),
  CustomResourceDefinition: defineResource<Plain<V1CustomResourceDefinition>>({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
  }),
});
