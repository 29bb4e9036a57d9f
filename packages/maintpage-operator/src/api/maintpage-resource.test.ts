import { describe, expect, it } from 'vitest';
import { DNS_1035_LABEL, IMAGE_REFERENCE } from './formats.ts';
import { MaintPageResource } from './maintpage-resource.ts';

describe('the MaintPage CRD', () => {
  it("keeps the seed's group, version and kind, with a short name and kubectl columns", () => {
    expect(MaintPageResource.apiVersion).toBe('maintpage.example.com/v1alpha1');
    expect(MaintPageResource.kind).toBe('MaintPage');
    expect(MaintPageResource.shortNames).toEqual(['mp']);
    expect(MaintPageResource.versions[0].printerColumns.map((column) => column.name)).toEqual([
      'Toggle',
      'Published',
      'Ready',
      'Reason',
      'Age',
    ]);
  });
});

describe('IMAGE_REFERENCE', () => {
  const image = new RegExp(IMAGE_REFERENCE);

  it.each([
    'quay.io/daein/maintpage:latest',
    'nginx',
    'nginx:1.27-alpine',
    'docker.io/library/httpd:2.4',
    'localhost:5000/team/page',
    'registry.example.com:443/a/b/c:v1.2.3_rc1',
    `ghcr.io/org/page@sha256:${'a'.repeat(64)}`,
    `ghcr.io/org/page:1.0@sha256:${'0'.repeat(64)}`,
  ])('accepts %s', (reference) => {
    expect(reference).toMatch(image);
  });

  it.each([
    ['upper case in the repository', 'quay.io/Daein/maintpage:latest'],
    ['an empty tag', 'quay.io/daein/maintpage:'],
    ['a space', 'quay.io/daein/maint page'],
    ['a scheme', 'https://quay.io/daein/maintpage'],
    ['a short digest', 'nginx@sha256:abc'],
    ['a trailing slash', 'quay.io/daein/'],
  ])('refuses %s', (_what, reference) => {
    expect(reference).not.toMatch(image);
  });
});

describe('DNS_1035_LABEL', () => {
  const label = new RegExp(DNS_1035_LABEL);
  it.each(['httpd', 'web-1', 'a'])('accepts %s', (name) => {
    expect(name).toMatch(label);
  });
  it.each(['1web', 'Web', 'web-', 'web.shop', 'web_1', ''])('refuses %j', (name) => {
    expect(name).not.toMatch(label);
  });
});
