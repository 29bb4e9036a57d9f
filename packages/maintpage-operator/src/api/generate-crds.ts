/**
 * Writes the MaintPage CRD to deploy/maintpage-operator/crd/ from the API declared in code:
 *   npm run crds -w @k8s-operators/maintpage-operator
 * A unit test (maintpage-resource.test.ts) fails when the committed file differs from what this writes.
 */
import { fileURLToPath } from 'node:url';
import { writeCrds } from '@k8s-operators/controller-core/crd';
import { CRD_DIRECTORY, REGENERATE_CRDS_COMMAND } from './crd-location.ts';
import { MaintPageResource } from './maintpage-resource.ts';

const written = await writeCrds([MaintPageResource], fileURLToPath(CRD_DIRECTORY), {
  regenerateCommand: REGENERATE_CRDS_COMMAND,
});
for (const path of written) console.log(`wrote ${path}`);
