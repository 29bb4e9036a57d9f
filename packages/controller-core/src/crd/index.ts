// @k8s-operators/controller-core/crd: the CRD tooling that needs more than a controller does at run time. The
// conditions schema is built with TypeBox, and rendering writes YAML. Both load their libraries (about 20 MiB of RSS),
// so an operator whose runtime imports only the main entry point and its ResourceRefs never pays for them.

export { conditionsSchema, type ConditionsSchemaOptions } from './conditions-schema.ts';
export { crdDiff, crdFileName, renderCrdYaml, writeCrds, type RenderCrdOptions } from './render-crd.ts';
export { committedCrdDifference, writeCrdFiles, type CrdFiles } from './crd-files.ts';
