import { join } from 'node:path';
import { packagesLoadedBy } from '@k8s-operators/testkit';
import { describe, expect, it } from 'vitest';

describe('the operator process', () => {
  it('loads no TypeBox: the schemas are for CRD generation, and would add to the RSS of the runtime', async () => {
    // --help prints the usage and exits 0 once every static import is loaded.
    const loaded = await packagesLoadedBy(join(import.meta.dirname, 'main.ts'), ['--help']);
    expect(loaded).toContain('pino'); // the check sees packages
    expect(loaded).not.toContain('typebox');
  });
});
