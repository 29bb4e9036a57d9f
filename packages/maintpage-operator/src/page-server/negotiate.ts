/**
 * HTTP content negotiation on `Accept` (RFC 9110 §12.5.1), for the handful of representations a server offers.
 *
 * - Each offered type gets the weight (`q`, default 1) of the most specific range that matches it: `type/subtype`
 *   over `type/*` over the full wildcard, so `application/*;q=0.5, application/json;q=0` refuses JSON.
 * - The highest weight above 0 wins. On a tie, a type the client named explicitly beats one it only accepted through
 *   a wildcard (axios sends `application/json, text/plain` plus the full wildcard, and gets JSON), then the server's
 *   order decides (curl's lone wildcard gets the first offered type).
 * - Media type parameters (`charset=utf-8`) are not compared: every representation here is UTF-8.
 */

interface MediaRange {
  type: string;
  subtype: string;
  weight: number;
  /** 3 for type/subtype, 2 for type/wildcard, 1 for the full wildcard. */
  specificity: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const WEIGHT = /^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$/;

/** Splits on `separator` outside double-quoted strings (a parameter value may be quoted and contain commas). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === '\\' && quoted) {
      current += char + text.charAt(i + 1);
      i++;
    } else if (char === '"') {
      quoted = !quoted;
      current += char;
    } else if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

/** The ranges of an Accept header; malformed entries are skipped, as most servers do. */
function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const entry of splitOutsideQuotes(header, ',')) {
    const [mediaType = '', ...parameters] = splitOutsideQuotes(entry, ';').map((part) => part.trim());
    const [type = '', subtype = '', extra] = mediaType.toLowerCase().split('/');
    if (extra !== undefined || !TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) continue;
    let weight = 1;
    let valid = true;
    for (const parameter of parameters) {
      const [name = '', value = ''] = parameter.split('=').map((part) => part.trim());
      if (name.toLowerCase() !== 'q') continue;
      if (!WEIGHT.test(value)) valid = false;
      weight = Number(value);
    }
    if (!valid) continue;
    const specificity = type === '*' ? 1 : subtype === '*' ? 2 : 3;
    ranges.push({ type, subtype, weight, specificity });
  }
  return ranges;
}

function bestRangeFor(offered: string, ranges: readonly MediaRange[]): MediaRange | undefined {
  const [type, subtype] = offered.toLowerCase().split('/');
  let best: MediaRange | undefined;
  for (const range of ranges) {
    const matches =
      range.specificity === 1 ||
      (range.type === type && (range.specificity === 2 || range.subtype === subtype));
    if (matches && (best === undefined || range.specificity > best.specificity)) best = range;
  }
  return best;
}

/**
 * The offered media type (`type/subtype`, in the server's order of preference) the client prefers, or `undefined`
 * when it accepts none of them. A missing or empty header accepts anything: the first offered type.
 */
export function negotiateMediaType(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return offered[0];
  let chosen: { type: string; range: MediaRange } | undefined;
  for (const type of offered) {
    const range = bestRangeFor(type, ranges);
    if (range === undefined || range.weight === 0) continue;
    const better =
      chosen === undefined ||
      range.weight > chosen.range.weight ||
      (range.weight === chosen.range.weight && range.specificity > chosen.range.specificity);
    if (better) chosen = { type, range };
  }
  return chosen?.type;
}
