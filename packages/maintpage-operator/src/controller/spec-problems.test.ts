import { describe, expect, it } from 'vitest';
import { maintPageFixture } from '../../test/maintpage-fixture.ts';
import { specProblem } from './spec-problems.ts';

describe('specProblem', () => {
  it('finds nothing wrong with the seed sample', () => {
    expect(specProblem(maintPageFixture())).toBeUndefined();
  });

  it('refuses a name too long for a label value', () => {
    expect(specProblem(maintPageFixture({ name: 'a'.repeat(64) }))).toBe(
      'metadata.name is 64 characters long; a MaintPage name is used as a label value, which allows at most 63: ' +
        'recreate it with a shorter name',
    );
    expect(specProblem(maintPageFixture({ name: 'a'.repeat(63) }))).toBeUndefined();
  });

  it('refuses an appname equal to the maintenance Deployment name', () => {
    expect(specProblem(maintPageFixture({ appconfig: { appname: 'example-maintpage' } }))).toBe(
      'spec.appconfig.appname "example-maintpage" is also the name of the maintenance page Deployment; choose another appname',
    );
  });

  it('refuses a schedule time that slipped past the CRD', () => {
    expect(specProblem(maintPageFixture({ maintpageconfig: { schedule: { end: '2026-03-02 02:00' } } }))).toBe(
      'spec.maintpageconfig.schedule.end "2026-03-02 02:00" is not an RFC 3339 time with a zone, such as 2026-03-01T22:00:00Z',
    );
  });
});
