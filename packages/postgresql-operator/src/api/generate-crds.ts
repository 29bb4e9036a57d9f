// Writes deploy/postgresql-operator/crd/ from the API declared in code: `npm run crds -w @k8s-operators/postgresql-operator`.
// A test (crd-files.test.ts) fails when the committed files differ from what this writes.
import { writeCrdFiles } from '@k8s-operators/controller-core/crd';
import { CRD_FILES } from './crd-files.ts';

for (const path of await writeCrdFiles(CRD_FILES)) console.log(`wrote ${path}`);
