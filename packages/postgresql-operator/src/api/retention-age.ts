import { RETENTION_AGE } from './formats.ts';

const UNIT_MS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** `retention.maxAge` (`90m`, `36h`, `7d`, `2w`) in milliseconds; throws for anything the CRD would refuse. */
export function parseRetentionAge(text: string): number {
  const unit = UNIT_MS[text.slice(-1)];
  if (!new RegExp(RETENTION_AGE).test(text) || unit === undefined) {
    throw new Error(`retention age ${JSON.stringify(text)} must be a whole number followed by m, h, d or w, e.g. 7d`);
  }
  return Number(text.slice(0, -1)) * unit;
}
