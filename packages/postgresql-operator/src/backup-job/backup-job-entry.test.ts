import { join } from 'node:path';
import { packagesLoadedBy } from '@k8s-operators/testkit';
import { expect, it } from 'vitest';

it("keeps a backup Job's start lean: the logger and the database client, not the runtime's API client or metrics", async () => {
  const loaded = await packagesLoadedBy(join(import.meta.dirname, '..', 'main.ts'), ['backup-job', '--help']);
  expect(loaded).toContain('pino'); // the check sees the packages the Job does load
  expect(loaded).toContain('pg');
  for (const heavy of ['@kubernetes/client-node', 'prom-client', 'undici', 'typebox', '@aws-sdk/client-s3']) expect(loaded).not.toContain(heavy);
});
