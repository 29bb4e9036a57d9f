import { describe, expect, it } from 'vitest';
import { negotiateMediaType } from './negotiate.ts';

const offered = ['text/html', 'application/json'] as const;

describe('negotiateMediaType', () => {
  it.each([
    ['no Accept header', undefined, 'text/html'],
    ['an empty header', '', 'text/html'],
    ["curl's */*", '*/*', 'text/html'],
    [
      "a browser's header",
      'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
      'text/html',
    ],
    ['application/json', 'application/json', 'application/json'],
    ["axios' default, naming JSON before the wildcard", 'application/json, text/plain, */*', 'application/json'],
    ['a higher weight for JSON', 'text/html;q=0.5, application/json', 'application/json'],
    ['a higher weight for HTML', 'text/html, application/json;q=0.9', 'text/html'],
    ['a type wildcard', 'application/*', 'application/json'],
    ['a specific range refusing what a wildcard accepts', 'application/*;q=0.5, application/json;q=0, */*;q=0.1', 'text/html'],
    ['q=0 on HTML', 'text/html;q=0, */*', 'application/json'],
    ['upper case and spaces', 'Application/JSON ; Q=1.0', 'application/json'],
    ['parameters that are not q', 'application/json; charset=utf-8', 'application/json'],
    ['a quoted parameter with a comma', 'text/html;foo="a,b";q=0.1, application/json;q=0.2', 'application/json'],
    ['a malformed entry beside a good one', 'nonsense, application/json', 'application/json'],
    ['only malformed entries: as if absent', 'nonsense;;', 'text/html'],
    ['an invalid weight: the entry is skipped', 'application/json;q=2, text/html;q=0.1', 'text/html'],
  ])('%s: %s', (_what, accept, expected) => {
    expect(negotiateMediaType(accept, offered)).toBe(expected);
  });

  it.each([
    ['types not offered', 'image/png'],
    ['everything refused', 'text/html;q=0, application/json;q=0'],
    ['the wildcard refused', '*/*;q=0'],
  ])('accepts none of them for %s', (_what, accept) => {
    expect(negotiateMediaType(accept, offered)).toBeUndefined();
  });
});
