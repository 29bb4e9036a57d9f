import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { Static, TSchema } from 'typebox';
import { NonStructuralSchemaError, toStructuralSchema, type OpenApiSchema } from './structural-schema.ts';

/**
 * An operator declares each custom resource once, in code: names, scope, and per version a TypeBox schema for `spec`
 * and `status`. From that one declaration come the static types the controller uses (`CustomResource<typeof X>`)
 * and the CustomResourceDefinition written under `deploy/` (`crdManifest`, `renderCrdYaml`).
 *
 *   export const MaintPageResource = defineCustomResource({
 *     group: 'maintpage.example.com', kind: 'MaintPage', plural: 'maintpages', scope: 'Namespaced',
 *     versions: [{ name: 'v1alpha1', spec: MaintPageSpec, status: MaintPageStatus, printerColumns: [...] }],
 *   });
 *   export type MaintPage = CustomResource<typeof MaintPageResource>;
 */

/** A `kubectl get` column (`additionalPrinterColumns`). */
export interface PrinterColumn {
  /** Column header. */
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** Simple JSONPath into the object, starting with '.', e.g. `.status.conditions[?(@.type=="Ready")].status`. */
  jsonPath: string;
  description?: string;
  format?: 'int32' | 'int64' | 'float' | 'double' | 'byte' | 'date' | 'date-time' | 'password';
  /** 0 shows in every `kubectl get`; higher numbers only with `-o wide`. Default 0. */
  priority?: number;
}

export interface CustomResourceVersion {
  /** e.g. `v1alpha1`. */
  name: string;
  /** Whether the API serves this version. Default true. */
  served?: boolean;
  /** Whether objects are stored in this version. Exactly one version stores; a lone version does by default. */
  storage?: boolean;
  /** Schema of `.spec`, which is required. */
  spec: TSchema;
  /** Schema of `.status`; giving one also enables the status subresource. */
  status?: TSchema;
  printerColumns?: readonly PrinterColumn[];
  deprecated?: boolean;
  /** Shown to clients using a deprecated version. Default: the API server's generic warning. */
  deprecationWarning?: string;
}

export interface CustomResourceOptions<
  Group extends string,
  Kind extends string,
  Versions extends readonly CustomResourceVersion[],
> {
  /** API group, a DNS subdomain with at least one dot, e.g. `maintpage.example.com`. */
  group: Group;
  /** CamelCase kind, e.g. `MaintPage`. */
  kind: Kind;
  /** Lowercase plural used in URLs, e.g. `maintpages`. */
  plural: string;
  /** Lowercase singular. Default: the kind in lowercase. */
  singular?: string;
  /** Default: `<kind>List`. */
  listKind?: string;
  /** Short names for kubectl, e.g. `['mp']`. Default none. */
  shortNames?: readonly string[];
  /** Groups for `kubectl get <category>`, e.g. `['all']` or the operator's name. Default none. */
  categories?: readonly string[];
  scope: 'Namespaced' | 'Cluster';
  versions: Versions;
  /** Description of the whole object. Default: `<kind> is the Schema for the <plural> API.`, as kubebuilder writes. */
  description?: string;
}

/** The version objects are stored in: the only one, or the one marked `storage: true`. */
type StorageVersionOf<Versions extends readonly CustomResourceVersion[]> = Versions extends readonly [
  infer Only extends CustomResourceVersion,
]
  ? Only
  : Extract<Versions[number], { storage: true }>;

/** What `defineCustomResource` returns: the options with defaults filled in, plus converted schemas. */
export interface CustomResourceDeclaration<
  Group extends string = string,
  Kind extends string = string,
  Versions extends readonly CustomResourceVersion[] = readonly CustomResourceVersion[],
> {
  readonly group: Group;
  readonly kind: Kind;
  readonly plural: string;
  readonly singular: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  readonly versions: Versions;
  readonly description: string;
  /** Name of the storage version: the one a controller reads and writes. */
  readonly storageVersion: StorageVersionOf<Versions>['name'];
  /** `<group>/<storageVersion>`, for building objects and API paths. */
  readonly apiVersion: `${Group}/${StorageVersionOf<Versions>['name']}`;
  /** Structural schemas per version name, checked when the declaration was made. */
  readonly schemas: ReadonlyMap<string, { spec: OpenApiSchema; status?: OpenApiSchema }>;
}

type VersionNamed<Declaration extends CustomResourceDeclaration, Name> = Extract<
  Declaration['versions'][number],
  { name: Name }
>;

/** Static type of `.spec` of a declared resource, for its storage version or the version named. */
export type CustomResourceSpec<
  Declaration extends CustomResourceDeclaration,
  Version extends Declaration['versions'][number]['name'] = Declaration['storageVersion'],
> = Static<VersionNamed<Declaration, Version>['spec']>;

/** Static type of `.status`, or `never` for a version without a status schema. */
export type CustomResourceStatus<
  Declaration extends CustomResourceDeclaration,
  Version extends Declaration['versions'][number]['name'] = Declaration['storageVersion'],
> = VersionNamed<Declaration, Version> extends { status: infer Status extends TSchema } ? Static<Status> : never;

/**
 * An object of a declared resource, as read from the API server: `CustomResource<typeof MaintPageResource>`, or
 * `CustomResource<typeof R, 'v1beta1'>` for another served version. `status` is optional: a new object has none.
 */
export type CustomResource<
  Declaration extends CustomResourceDeclaration,
  Version extends Declaration['versions'][number]['name'] = Declaration['storageVersion'],
> = {
  apiVersion: `${Declaration['group']}/${Version}`;
  kind: Declaration['kind'];
  metadata: V1ObjectMeta;
  spec: CustomResourceSpec<Declaration, Version>;
} & (VersionNamed<Declaration, Version> extends { status: infer Status extends TSchema }
  ? { status?: Static<Status> }
  : unknown);

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;

function fail(kind: string, problem: string): never {
  throw new Error(`defineCustomResource(${kind}): ${problem}`);
}

function checkNames(options: CustomResourceOptions<string, string, readonly CustomResourceVersion[]>): void {
  const { group, kind, plural, singular, shortNames = [], categories = [] } = options;
  if (!KIND.test(kind)) fail(kind, 'kind must be CamelCase, starting with an upper-case letter');
  if (!DNS_SUBDOMAIN.test(group) || group.length > 253) {
    fail(kind, `group ${JSON.stringify(group)} must be a lowercase DNS name with at least one dot`);
  }
  for (const [what, name] of [
    ['plural', plural],
    ['singular', singular ?? kind.toLowerCase()],
    ...shortNames.map((n) => ['short name', n] as const),
    ...categories.map((n) => ['category', n] as const),
  ] as const) {
    if (!DNS_LABEL.test(name)) fail(kind, `${what} ${JSON.stringify(name)} must be a lowercase DNS label`);
  }
  // kubectl expands a category before it tries names: one spelled like a name makes `kubectl get <name> <object>`
  // list every kind in the category, or fail with "you must specify only one resource".
  const typed = [plural, singular ?? kind.toLowerCase(), ...shortNames];
  const shadowing = categories.find((category) => typed.includes(category));
  if (shadowing !== undefined) fail(kind, `category ${JSON.stringify(shadowing)} is also a name of the kind, which kubectl would no longer resolve: rename the category`);
}

function checkVersions(kind: string, versions: readonly CustomResourceVersion[]): CustomResourceVersion {
  if (versions.length === 0) fail(kind, 'needs at least one version');
  const names = new Set<string>();
  for (const version of versions) {
    if (!DNS_LABEL.test(version.name)) {
      fail(kind, `version ${JSON.stringify(version.name)} must be a DNS label like v1alpha1`);
    }
    if (names.has(version.name)) fail(kind, `version ${version.name} is declared twice`);
    names.add(version.name);
    for (const column of version.printerColumns ?? []) {
      if (!column.jsonPath.startsWith('.')) {
        fail(kind, `printer column ${column.name} (${version.name}): jsonPath must start with '.', got ${column.jsonPath}`);
      }
    }
  }
  // A lone version stores unless it says otherwise; among several, one must say so.
  const storing = versions.filter((v) => (versions.length === 1 ? v.storage !== false : v.storage === true));
  const [storage, ...others] = storing;
  if (storage === undefined || others.length > 0) {
    fail(kind, `exactly one version must have storage: true (found ${storing.length})`);
  }
  if (storage.served === false) fail(kind, `the storage version ${storage.name} must be served`);
  return storage;
}

/**
 * Without a conversion webhook (strategy None) the API server serves stored objects under every version unchanged, so
 * versions whose schemas differ would silently prune or misread fields. Refuse that instead.
 */
function checkSameSchemas(kind: string, schemas: Map<string, { spec: OpenApiSchema; status?: OpenApiSchema }>): void {
  const [first, ...others] = [...schemas];
  if (first === undefined) return;
  const [firstName, firstSchema] = first;
  for (const [name, schema] of others) {
    if (JSON.stringify(schema) !== JSON.stringify(firstSchema)) {
      fail(
        kind,
        `versions ${firstName} and ${name} have different schemas; without a conversion webhook every served ` +
          'version must have the same schema',
      );
    }
  }
}

/** Checks the declaration (names, versions, structural schemas) and fills in defaults. Throws on the first problem. */
export function defineCustomResource<
  const Group extends string,
  const Kind extends string,
  const Versions extends readonly CustomResourceVersion[],
>(options: CustomResourceOptions<Group, Kind, Versions>): CustomResourceDeclaration<Group, Kind, Versions> {
  const { group, kind, plural, scope, versions } = options;
  checkNames(options);
  const storage = checkVersions(kind, versions);
  const schemas = new Map<string, { spec: OpenApiSchema; status?: OpenApiSchema }>();
  for (const version of versions) {
    try {
      const spec = toStructuralSchema(version.spec, '.spec');
      schemas.set(
        version.name,
        version.status === undefined ? { spec } : { spec, status: toStructuralSchema(version.status, '.status') },
      );
    } catch (error) {
      if (!(error instanceof NonStructuralSchemaError)) throw error;
      fail(kind, `version ${version.name}: ${error.message}`);
    }
  }
  checkSameSchemas(kind, new Map([...schemas].filter(([name]) => versions.find((v) => v.name === name)?.served !== false)));
  return Object.freeze({
    group,
    kind,
    plural,
    singular: options.singular ?? kind.toLowerCase(),
    listKind: options.listKind ?? `${kind}List`,
    shortNames: Object.freeze([...(options.shortNames ?? [])]),
    categories: Object.freeze([...(options.categories ?? [])]),
    scope,
    versions,
    description: options.description ?? `${kind} is the Schema for the ${plural} API.`,
    storageVersion: storage.name,
    apiVersion: `${group}/${storage.name}` as `${Group}/${StorageVersionOf<Versions>['name']}`,
    schemas,
  });
}
