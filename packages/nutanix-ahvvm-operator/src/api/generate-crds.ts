// Writes deploy/nutanix-ahvvm-operator/crd/ from the API declared in code: `npm run crds` in this package.
import { writeCrds } from '@k8s-operators/controller-core/crd';
import { CRD_DECLARATIONS, CRD_DIRECTORY, REGENERATE_COMMAND } from './crd-files.ts';

const written = await writeCrds(CRD_DECLARATIONS, CRD_DIRECTORY, { regenerateCommand: REGENERATE_COMMAND });
for (const path of written) console.log(`wrote ${path}`);
