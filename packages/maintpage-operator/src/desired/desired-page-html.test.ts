import { describe, expect, it } from 'vitest';
import { builtInPageFixture, maintPageFixture, resolved } from '../../test/maintpage-fixture.ts';
import { desiredPageHtmlConfigMap } from './desired-page-html.ts';

describe('desiredPageHtmlConfigMap', () => {
  it('carries page.html for the built-in page server, owned by the MaintPage', () => {
    const html = '<h1>Back soon</h1>';
    expect(desiredPageHtmlConfigMap(resolved(builtInPageFixture({ maintpageconfig: { page: { html } } })))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'example-maintpage-html',
        namespace: 'maintpage-operator',
        labels: { 'maintpage.example.com/instance': 'example', 'maintpage.example.com/role': 'maintenance' },
        ownerReferences: [expect.objectContaining({ kind: 'MaintPage', name: 'example', controller: true })],
      },
      data: { 'page.html': html },
    });
  });

  it('is not wanted without an inline page, or when a user image serves the page', () => {
    expect(desiredPageHtmlConfigMap(resolved(builtInPageFixture()))).toBeUndefined();
    expect(
      desiredPageHtmlConfigMap(
        resolved(builtInPageFixture({ maintpageconfig: { page: { htmlFrom: { configMapKeyRef: { name: 'pages', key: 'shop.html' } } } } })),
      ),
    ).toBeUndefined();
    expect(desiredPageHtmlConfigMap(resolved(maintPageFixture({ maintpageconfig: { page: { html: '<p>x</p>' } } })))).toBeUndefined();
  });
});
