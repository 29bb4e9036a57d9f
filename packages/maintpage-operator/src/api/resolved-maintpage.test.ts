import { crdManifest } from '@k8s-operators/controller-core';
import { describe, expect, it } from 'vitest';
import { builtInPageFixture, maintPageFixture, resolved } from '../../test/maintpage-fixture.ts';
import { MaintPageResource, type MaintPage } from './maintpage-resource.ts';
import { resolveMaintPage } from './resolved-maintpage.ts';

const start = '2026-03-01T22:00:00Z';
const end = '2026-03-02T02:00:00Z';

function problemOf(maintPage: MaintPage): string | undefined {
  const resolution = resolveMaintPage(maintPage);
  return resolution.ok ? undefined : resolution.message;
}

function withSchedule(schedule: { start?: string; end?: string }): MaintPage {
  return maintPageFixture({ maintpageconfig: { schedule } });
}

/** The seed's sample with only the fields the CRD requires: every optional field left to its default. */
function requiredFieldsOnly(): MaintPage {
  const maintPage = maintPageFixture();
  return { ...maintPage, spec: { appconfig: { appname: 'httpd', appimage: 'quay.io/daein/prodpage:latest' } } };
}

describe('resolveMaintPage: defaults', () => {
  it("gives every optional field the seed's behaviour: toggle off, the built-in page, port 8080, one pod each, Revert", () => {
    expect(resolved(requiredFieldsOnly()).spec).toEqual({
      maintpageconfig: {
        maintpagetoggle: false,
        port: 8080,
        replicas: 1,
        page: { message: 'This service is down for maintenance. Please try again later.', retryAfterSeconds: 300 },
      },
      appconfig: {
        appname: 'httpd',
        appimage: 'quay.io/daein/prodpage:latest',
        port: 8080,
        replicas: 1,
        imageChangePolicy: 'Revert',
      },
    });
  });

  it('keeps every value that is given', () => {
    const maintPage = builtInPageFixture({
      maintpageconfig: {
        maintpagetoggle: true,
        port: 9000,
        replicas: 2,
        page: { message: 'Back soon.', retryAfterSeconds: 60, html: '<h1>Back soon</h1>' },
      },
      appconfig: { port: 3000, replicas: 0, imageChangePolicy: 'Allow' },
    });
    expect(resolved(maintPage).spec).toEqual({
      maintpageconfig: {
        maintpagetoggle: true,
        port: 9000,
        replicas: 2,
        page: { message: 'Back soon.', retryAfterSeconds: 60, html: '<h1>Back soon</h1>' },
      },
      appconfig: { appname: 'httpd', appimage: 'quay.io/daein/prodpage:latest', port: 3000, replicas: 0, imageChangePolicy: 'Allow' },
    });
    const htmlFrom = { configMapKeyRef: { name: 'pages', key: 'shop.html' } };
    expect(resolved(builtInPageFixture({ maintpageconfig: { page: { htmlFrom } } })).spec.maintpageconfig.page.htmlFrom).toEqual(htmlFrom);
    expect(resolved(maintPageFixture()).spec.maintpageconfig.maintpageimage).toBe('quay.io/daein/maintpage:latest');
  });

  it('applies the defaults the installed CRD declares, so a stored object and an object built in a test read alike', () => {
    const spec = crdManifest(MaintPageResource).spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.properties ?? {};
    const config = spec.maintpageconfig?.properties ?? {};
    const page = config.page?.properties ?? {};
    const app = spec.appconfig?.properties ?? {};
    const { maintpageconfig, appconfig } = resolved(requiredFieldsOnly()).spec;
    for (const field of ['maintpagetoggle', 'port', 'replicas'] as const) {
      expect(maintpageconfig[field], `maintpageconfig.${field}`).toBe(config[field]?.default);
    }
    for (const field of ['message', 'retryAfterSeconds'] as const) {
      expect(maintpageconfig.page[field], `maintpageconfig.page.${field}`).toBe(page[field]?.default);
    }
    for (const field of ['port', 'replicas', 'imageChangePolicy'] as const) {
      expect(appconfig[field], `appconfig.${field}`).toBe(app[field]?.default);
    }
  });

  it('keeps the metadata and status as read, for owner references, names and the generation', () => {
    const maintPage = maintPageFixture({ generation: 4, status: { maintpublishstatus: 'Published' } });
    expect(resolved(maintPage)).toMatchObject({
      apiVersion: maintPage.apiVersion,
      kind: maintPage.kind,
      metadata: maintPage.metadata,
      status: maintPage.status,
    });
  });
});

describe('resolveMaintPage: the schedule window', () => {
  it('has no window without a schedule', () => {
    expect(resolved(maintPageFixture()).spec.maintpageconfig.schedule).toBeUndefined();
  });

  it('reads both bounds as instants, whatever zone each is written in, and keeps them as written', () => {
    const window = resolved(withSchedule({ start: '2026-03-02T07:00:00+09:00', end: '2026-03-01T21:00:00.5-05:00' })).spec
      .maintpageconfig.schedule;
    expect(window).toEqual({
      start: { at: new Date('2026-03-01T22:00:00Z'), asWritten: '2026-03-02T07:00:00+09:00' },
      end: { at: new Date('2026-03-02T02:00:00.500Z'), asWritten: '2026-03-01T21:00:00.5-05:00' },
    });
  });

  it('has a window with only a start or only an end', () => {
    expect(resolved(withSchedule({ start })).spec.maintpageconfig.schedule).toEqual({ start: { at: new Date(start), asWritten: start } });
    expect(resolved(withSchedule({ end })).spec.maintpageconfig.schedule).toEqual({ end: { at: new Date(end), asWritten: end } });
  });

  // None of these is read as "no window" (a typo must not quietly cancel maintenance): each is InvalidSpec.
  it.each([
    ['a start that is no time', { start: 'tonight', end }, 'spec.maintpageconfig.schedule.start "tonight"'],
    ['a lone start that is no time', { start: 'soon' }, 'spec.maintpageconfig.schedule.start "soon"'],
    ['an end without a zone', { start, end: '2026-03-02T02:00:00' }, 'spec.maintpageconfig.schedule.end "2026-03-02T02:00:00"'],
    ['an end with a space for T and no seconds', { end: '2026-03-02 02:00' }, 'spec.maintpageconfig.schedule.end "2026-03-02 02:00"'],
    ['an empty end', { start, end: '' }, 'spec.maintpageconfig.schedule.end ""'],
    ['an end on a day that does not exist', { end: '2026-02-30T00:00:00Z' }, 'spec.maintpageconfig.schedule.end "2026-02-30T00:00:00Z"'],
  ])('refuses %s', (_what, schedule, field) => {
    expect(resolveMaintPage(withSchedule(schedule))).toEqual({
      ok: false,
      message: `${field} is not an RFC 3339 time with a zone, such as 2026-03-01T22:00:00Z`,
    });
  });

  it('refuses a schedule with neither start nor end', () => {
    expect(resolveMaintPage(withSchedule({}))).toEqual({
      ok: false,
      message: 'spec.maintpageconfig.schedule has neither start nor end: set start, end or both, or remove schedule',
    });
  });

  it.each([
    ['at', start],
    ['before', '2026-03-01T21:00:00Z'],
  ])('refuses an end %s the start, a window that would never open', (_what, endTime) => {
    expect(resolveMaintPage(withSchedule({ start, end: endTime }))).toEqual({
      ok: false,
      message:
        `spec.maintpageconfig.schedule.end "${endTime}" is not after spec.maintpageconfig.schedule.start "${start}", ` +
        'so the window would never open: set end after start',
    });
  });
});

describe('resolveMaintPage: names', () => {
  it('finds nothing wrong with the seed sample', () => {
    expect(problemOf(maintPageFixture())).toBeUndefined();
  });

  it('refuses a name too long for a label value', () => {
    expect(problemOf(maintPageFixture({ name: 'a'.repeat(64) }))).toBe(
      'metadata.name is 64 characters long; a MaintPage name is used as a label value, which allows at most 63: ' +
        'recreate it with a shorter name',
    );
    expect(problemOf(maintPageFixture({ name: 'a'.repeat(63) }))).toBeUndefined();
  });

  it('refuses an appname equal to the maintenance Deployment name', () => {
    expect(problemOf(maintPageFixture({ appconfig: { appname: 'example-maintpage' } }))).toBe(
      'spec.appconfig.appname "example-maintpage" is also the name of the maintenance page Deployment; choose another appname',
    );
  });

  it('reports a name problem before a schedule problem', () => {
    expect(problemOf(maintPageFixture({ name: 'a'.repeat(64), maintpageconfig: { schedule: {} } }))).toMatch(/^metadata\.name/);
  });
});
