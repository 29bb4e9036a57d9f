import { RFC3339_TIME } from './formats.ts';

const RFC3339 = new RegExp(RFC3339_TIME);

/**
 * The instant an RFC 3339 time with a zone names, in milliseconds since the epoch, or `undefined` when `text` is not
 * one (including dates that do not exist, such as February 30). Parsed by hand rather than with `Date.parse`, whose
 * leniency varies (local times, extra digits), so a schedule means the same instant everywhere. Sub-millisecond
 * digits are dropped.
 */
export function parseRfc3339(text: string): number | undefined {
  if (!RFC3339.test(text)) return undefined;
  const number = (from: number, to: number): number => Number(text.slice(from, to));
  const [year, month, day] = [number(0, 4), number(5, 7), number(8, 10)];
  const [hour, minute, second] = [number(11, 13), number(14, 16), number(17, 19)];
  const rest = text.slice(19);
  const fraction = rest.startsWith('.') ? (/^\.([0-9]+)/.exec(rest)?.[1] ?? '') : '';
  const milliseconds = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const zone = rest.slice(fraction === '' ? 0 : fraction.length + 1);
  const offsetMinutes =
    zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = Date.UTC(year, month - 1, day, hour, minute, second, milliseconds);
  // Date.UTC rolls 2026-02-30 over into March; a date that does not come back unchanged does not exist.
  const check = new Date(local);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  return local - offsetMinutes * 60_000;
}
