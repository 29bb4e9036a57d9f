import { defineConfig, type ViteUserConfig } from 'vitest/config';

/**
 * Every package's test settings. Workspace packages resolve through their `source` export condition, so tests run the
 * TypeScript sources rather than a dist/ that may be stale; the timeouts leave room for tests that start a control
 * plane, a PostgreSQL or an operator's image.
 */
export function packageTestConfig(options: { include?: string[]; testTimeoutMs?: number } = {}): ViteUserConfig {
  return defineConfig({
    resolve: { conditions: ['source'] },
    ssr: { resolve: { conditions: ['source'] } },
    test: {
      include: options.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: options.testTimeoutMs ?? 120_000,
      hookTimeout: 180_000,
    },
  });
}
