import { committedCrdDifference } from '@k8s-operators/controller-core/crd';
import { describe, expect, it } from 'vitest';
import { CRD_FILES } from './crd-files.ts';

describe('the committed CRDs', () => {
  it.each(CRD_FILES.resources.map((resource) => [resource.kind, resource] as const))('%s is what the code generates', async (_kind, resource) => {
    const difference = await committedCrdDifference(CRD_FILES, resource);
    expect(difference, difference).toBeUndefined();
  });
});
