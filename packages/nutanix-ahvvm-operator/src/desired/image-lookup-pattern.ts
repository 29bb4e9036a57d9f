/**
 * The regular expression an `image_lookup` stands for: its `format` with `{{.BaseOS}}` replaced by `base_os`, as
 * CAPX renders its template (v1.10.3 `controllers/helpers.go` `GetImageByLookup`: text/template, then
 * `regexp.MustCompile`) — without CAPX's panic on a pattern that does not compile, which is a problem the user can fix.
 * `base_os` goes in as written, as CAPX substitutes it: its dots match any character, which is harmless in a name.
 */

export type ImageLookupPattern = { ok: true; pattern: string } | { ok: false; message: string };

const BASE_OS = /\{\{ *\.BaseOS *\}\}/g;

export function imageLookupPattern(lookup: { format: string; base_os?: string }): ImageLookupPattern {
  const { format, base_os: baseOs } = lookup;
  const usesBaseOs = format.search(BASE_OS) >= 0;
  if (usesBaseOs && baseOs === undefined) return { ok: false, message: 'format uses {{.BaseOS}} but base_os is not set' };
  const pattern = format.replace(BASE_OS, () => baseOs ?? '');
  if (pattern.includes('{{')) return { ok: false, message: `format ${JSON.stringify(format)} uses a template variable other than {{.BaseOS}}` };
  try {
    return { ok: true, pattern: new RegExp(pattern, 'u').source };
  } catch (error) {
    return { ok: false, message: `${JSON.stringify(pattern)} is not a valid regular expression (${(error as Error).message}); correct format or base_os` };
  }
}
