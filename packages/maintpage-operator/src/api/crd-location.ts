/** Where the generated CRD is committed, and the command that regenerates it (named in the file and in test failures). */

// src/api and dist/api are equally deep, so this resolves to the repository's deploy/ tree from either.
export const CRD_DIRECTORY = new URL('../../../../deploy/maintpage-operator/crd/', import.meta.url);

export const REGENERATE_CRDS_COMMAND = 'npm run crds -w @k8s-operators/maintpage-operator';
