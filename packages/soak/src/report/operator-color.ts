import { OPERATORS } from '../timeline.ts';

/**
 * Color by operator, over all three operators whichever have samples, so that one operator has the same color on
 * every chart of a report and in every report.
 */
export const OPERATOR_COLOR = { field: 'operator', type: 'nominal', title: 'operator', scale: { domain: [...OPERATORS] } } as const;
