// Every chart's time axis: minutes since the run started, the clock the markdown's mm:ss times also use, so a
// violation at 12:30 in the listing is found at 12.5 on a chart.
export const minutesSinceStart = (startedAt: number, at: number): number => (at - startedAt) / 60_000;

/** The x encoding of a chart whose rows carry `minutes` (from minutesSinceStart). */
export const MINUTES_SINCE_START_AXIS = { field: 'minutes', type: 'quantitative', title: 'minutes since start' } as const;
