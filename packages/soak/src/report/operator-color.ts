import { OPERATORS } from '../timeline.ts';

/**
 * Color by operator, over all three operators whichever have samples, so that one operator has the same color on
 * every chart of a report and in every report. Dark colors, where the fault rules under the lines use tableau20's.
 */
export const OPERATOR_COLOR = {
  field: 'operator',
  type: 'nominal',
  title: 'operator',
  scale: { domain: [...OPERATORS], range: ['#222222', '#0050a0', '#b00060'] },
} as const;
