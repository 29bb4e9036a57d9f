import { describe, expect, it } from 'vitest';
import { metav1Time, parseMetav1Time } from './metav1-time.ts';

describe('metav1Time', () => {
  it('writes RFC 3339 in UTC with whole seconds, dropping the fraction', () => {
    expect(metav1Time(new Date('2026-01-02T03:04:05.999Z'))).toBe('2026-01-02T03:04:05Z');
    expect(metav1Time(new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02T03:04:05Z');
    expect(metav1Time(new Date('2026-01-02T04:04:05.250+01:00'))).toBe('2026-01-02T03:04:05Z');
  });
});

describe('parseMetav1Time', () => {
  it('reads the wire string and the Date client-node types, and nothing else', () => {
    expect(parseMetav1Time('2026-01-02T03:04:05Z')).toEqual(new Date('2026-01-02T03:04:05Z'));
    expect(parseMetav1Time(new Date('2026-01-02T03:04:05Z'))).toEqual(new Date('2026-01-02T03:04:05Z'));
    expect(parseMetav1Time(undefined)).toBeUndefined();
    expect(parseMetav1Time('yesterday')).toBeUndefined();
  });
});
