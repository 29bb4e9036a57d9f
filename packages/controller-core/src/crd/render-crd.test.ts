import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { crdManifest } from './crd-manifest.ts';
import { defineCustomResource } from './define-custom-resource.ts';
import { crdDiff, crdFileName, renderCrdYaml, writeCrds } from './render-crd.ts';

const Gadget = defineCustomResource({
  group: 'gadgets.example.com',
  kind: 'Gadget',
  plural: 'gadgets',
  scope: 'Cluster',
  versions: [
    {
      name: 'v1',
      spec: Type.Object({ size: Type.Integer({ minimum: 1, default: 1 }), color: Type.Optional(Type.String()) }),
      status: Type.Object({ phase: Type.Optional(Type.String()) }),
    },
  ],
});

const options = { regenerateCommand: 'npm run crds -w @k8s-operators/gadget-operator' };

describe('renderCrdYaml', () => {
  it('writes a header naming the regenerate command, then the manifest with sorted keys', () => {
    expect(renderCrdYaml(Gadget, options)).toBe(`# Generated from the Gadget API declared in code (controller-core defineCustomResource). DO NOT EDIT.
# Regenerate with: npm run crds -w @k8s-operators/gadget-operator
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.gadgets.example.com
spec:
  group: gadgets.example.com
  names:
    kind: Gadget
    listKind: GadgetList
    plural: gadgets
    singular: gadget
  scope: Cluster
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: Gadget is the Schema for the gadgets API.
        properties:
          apiVersion:
            description: |-
              APIVersion defines the versioned schema of this representation of an object.
              Servers should convert recognized schemas to the latest internal value, and
              may reject unrecognized values.
              More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources
            type: string
          kind:
            description: |-
              Kind is a string value representing the REST resource this object represents.
              Servers may infer this from the endpoint the client submits requests to.
              Cannot be updated.
              In CamelCase.
              More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
            type: string
          metadata:
            type: object
          spec:
            properties:
              color:
                type: string
              size:
                default: 1
                minimum: 1
                type: integer
            required:
            - size
            type: object
          status:
            properties:
              phase:
                type: string
            type: object
        required:
        - spec
        type: object
    served: true
    storage: true
    subresources:
      status: {}
`);
  });

  it('round-trips to the manifest and is stable', () => {
    const yaml = renderCrdYaml(Gadget);
    expect(parse(yaml)).toEqual(crdManifest(Gadget));
    expect(renderCrdYaml(Gadget)).toBe(yaml);
    expect(yaml).toContain('# Regenerate with: npm run crds\n');
  });
});

describe('crdDiff', () => {
  it('accepts the generated file, also with Windows line endings', () => {
    const yaml = renderCrdYaml(Gadget, options);
    expect(crdDiff(Gadget, yaml, options)).toBeUndefined();
    expect(crdDiff(Gadget, yaml.replace(/\n/g, '\r\n'), options)).toBeUndefined();
  });

  it('explains a stale file: which file, the command to regenerate it, and the changed lines', () => {
    const stale = renderCrdYaml(Gadget, options).replace('minimum: 1', 'minimum: 0');
    const message = crdDiff(Gadget, stale, options);
    expect(message).toContain(
      'gadgets.example.com_gadgets.yaml is out of date with the Gadget schema in code. Regenerate it with: ' +
        'npm run crds -w @k8s-operators/gadget-operator',
    );
    expect(message).toContain('-                 minimum: 0\n+                 minimum: 1');
    expect(message).not.toContain('  kind: CustomResourceDefinition'); // far from the change: no context
  });
});

describe('writeCrds', () => {
  it("writes one file per resource, named as controller-gen names them", async () => {
    const directory = await mkdtemp(join(tmpdir(), 'crds-'));
    try {
      const target = join(directory, 'deploy', 'gadget', 'crd');
      const paths = await writeCrds([Gadget], target, options);
      expect(paths).toEqual([join(target, 'gadgets.example.com_gadgets.yaml')]);
      expect(crdFileName(Gadget)).toBe('gadgets.example.com_gadgets.yaml');
      expect(crdDiff(Gadget, await readFile(paths[0] ?? '', 'utf8'), options)).toBeUndefined();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
