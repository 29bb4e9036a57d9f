import { describe, expect, it } from 'vitest';
import { metav1Time } from './metav1-time.ts';

describe('metav1Time', () => {
  it('writes RFC 3339 in UTC with whole seconds, dropping the fraction', () => {
    expect(metav1Time(new Date('2026-01-02T03:04:05.999Z'))).toBe('2026-01-02T03:04:05Z');
    expect(metav1Time(new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02T03:04:05Z');
    expect(metav1Time(new Date('2026-01-02T04:04:05.250+01:00'))).toBe('2026-01-02T03:04:05Z');
  });
});
