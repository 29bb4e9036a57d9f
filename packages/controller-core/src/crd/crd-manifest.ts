import type { CustomResourceDeclaration } from './define-custom-resource.ts';
import type { OpenApiSchema } from './structural-schema.ts';

/** An `apiextensions.k8s.io/v1` CustomResourceDefinition as plain JSON, ready to serialise or apply. */
export interface CustomResourceDefinitionManifest {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      deprecated?: boolean;
      deprecationWarning?: string;
      schema: { openAPIV3Schema: OpenApiSchema };
      subresources?: { status: Record<string, never> };
      additionalPrinterColumns?: {
        name: string;
        type: string;
        jsonPath: string;
        description?: string;
        format?: string;
        priority?: number;
      }[];
    }[];
  };
}

// The descriptions controller-gen gives every kind's apiVersion and kind, so `kubectl explain` reads as usual.
const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object.\n' +
  'Servers should convert recognized schemas to the latest internal value, and\n' +
  'may reject unrecognized values.\n' +
  'More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents.\n' +
  'Servers may infer this from the endpoint the client submits requests to.\n' +
  'Cannot be updated.\n' +
  'In CamelCase.\n' +
  'More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** The CustomResourceDefinition for a declared resource. Returns a fresh object on every call. */
export function crdManifest(declaration: CustomResourceDeclaration): CustomResourceDefinitionManifest {
  const { group, kind, plural, singular, listKind, shortNames, categories, scope, versions, storageVersion } =
    declaration;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: {
        kind,
        listKind,
        plural,
        singular,
        ...(shortNames.length > 0 ? { shortNames: [...shortNames] } : {}),
        ...(categories.length > 0 ? { categories: [...categories] } : {}),
      },
      scope,
      versions: versions.map((version) => {
        const schemas = declaration.schemas.get(version.name);
        if (schemas === undefined) {
          throw new Error(`crdManifest: ${kind} has no schema for ${version.name}; declare it with defineCustomResource`);
        }
        const properties: Record<string, OpenApiSchema> = {
          apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
          kind: { description: KIND_DESCRIPTION, type: 'string' },
          metadata: { type: 'object' },
          spec: structuredClone(schemas.spec),
        };
        if (schemas.status !== undefined) properties.status = structuredClone(schemas.status);
        return {
          name: version.name,
          served: version.served ?? true,
          storage: version.name === storageVersion,
          ...(version.deprecated === true ? { deprecated: true } : {}),
          ...(version.deprecationWarning === undefined ? {} : { deprecationWarning: version.deprecationWarning }),
          schema: {
            openAPIV3Schema: { description: declaration.description, type: 'object', properties, required: ['spec'] },
          },
          ...(schemas.status === undefined ? {} : { subresources: { status: {} } }),
          ...(version.printerColumns === undefined || version.printerColumns.length === 0
            ? {}
            : { additionalPrinterColumns: version.printerColumns.map((column) => ({ ...column })) }),
        };
      }),
    },
  };
}
