// Matching a request against endpoints named `METHOD /path/{param}/...`, for the v3 and the v4 API alike: the name is
// the template, so the list of endpoints served is also the router's table.

export interface TemplateMatch<E extends string> {
  endpoint: E;
  /** Every `{...}` segment of the path, percent-decoded, in order. */
  params: string[];
}

/** A matcher over `endpoints`; a path may end in one `/`. */
export function templateMatcher<E extends string>(endpoints: readonly E[]): (method: string, path: string) => TemplateMatch<E> | undefined {
  const templates = endpoints.map((endpoint) => {
    const [method = '', template = ''] = endpoint.split(' ');
    // v4 paths carry `$actions` and versions such as `v4.2`: literal, not regular-expression syntax.
    const escaped = template.replace(/[$.]/g, (c) => `\\${c}`);
    const pattern = new RegExp(`^${escaped.replace(/\{[a-zA-Z_]+\}/g, '([^/]+)')}/?$`);
    return { endpoint, method, pattern };
  });
  return (method, path) => {
    for (const { endpoint, method: expected, pattern } of templates) {
      if (expected !== method) continue;
      const match = pattern.exec(path);
      if (match) return { endpoint, params: match.slice(1).map(decodeSegment) };
    }
    return undefined;
  };
}

/** A segment that is not valid percent-encoding is taken as sent, so that it is answered as an unknown name, not a 500. */
function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
