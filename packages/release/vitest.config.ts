import { packageTestConfig } from '../../vitest.shared.ts';

// The chart and bundle tests start an API server and run helm against it: one test may take a minute.
export default packageTestConfig({ include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeoutMs: 180_000 });
