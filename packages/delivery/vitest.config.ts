import { packageTestConfig } from '../../vitest.shared.ts';

// The delivery checks build and start images: one test may take minutes.
export default packageTestConfig({ include: ['test/**/*.test.ts'], testTimeoutMs: 300_000 });
