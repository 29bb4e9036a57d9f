// CAPX v1.10.3 (controllers/helpers.go `GetImageByLookup`) renders `imageLookup.format` as a Go template with
// `{{.BaseOS}}` and `{{.K8sVersion}}`, then compiles the result as a regular expression (and panics when it does not
// compile). An AhvVm has only `{{.BaseOS}}`; a pattern that does not compile is the user's to correct.

import { describe, expect, it } from 'vitest';
import { imageLookupPattern } from './image-lookup-pattern.ts';

describe('imageLookupPattern', () => {
  it('puts base_os where format says {{.BaseOS}}, as written (CAPX substitutes it unescaped)', () => {
    expect(imageLookupPattern({ format: '^{{.BaseOS}}-kube-v1.30.5-', base_os: 'ubuntu-22.04' })).toEqual({ ok: true, pattern: '^ubuntu-22.04-kube-v1.30.5-' });
    expect(imageLookupPattern({ format: '{{ .BaseOS }}|{{.BaseOS}}-old', base_os: 'rhel' })).toEqual({ ok: true, pattern: 'rhel|rhel-old' });
    expect(imageLookupPattern({ format: '^rocky-9-' })).toEqual({ ok: true, pattern: '^rocky-9-' });
  });

  it('says what to fix when base_os is missing, another variable is used, or the pattern does not compile', () => {
    expect(imageLookupPattern({ format: '{{.BaseOS}}-' })).toEqual({ ok: false, message: 'format uses {{.BaseOS}} but base_os is not set' });
    expect(imageLookupPattern({ format: '{{.BaseOS}}-{{.K8sVersion}}', base_os: 'x' })).toEqual({ ok: false, message: 'format "{{.BaseOS}}-{{.K8sVersion}}" uses a template variable other than {{.BaseOS}}' });
    const broken = imageLookupPattern({ format: '^{{.BaseOS}}-(', base_os: 'ubuntu' });
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.message).toMatch(/^"\^ubuntu-\(" is not a valid regular expression \(.+\); correct format or base_os$/);
  });
});
