// The shape of a Kubernetes object as the release generator reads it from a kustomize build.
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

export const isK8sObject = (value: unknown): value is K8sObject => {
  const object = value as Partial<K8sObject> | null;
  return typeof object?.apiVersion === 'string' && typeof object.kind === 'string' && typeof object.metadata?.name === 'string';
};

/** Every string in `value` passed through `map`, in a new value (objects and arrays copied, the rest kept). */
export function mapStrings<T>(value: T, map: (text: string) => string): T {
  if (typeof value === 'string') return map(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, map)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)])) as T;
  }
  return value;
}
