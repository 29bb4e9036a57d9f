// The operator image's entry point (src/main.ts) from this checkout's sources, for testkit's local node: an image map
// rule runs the operator image with the `node` runner and this file as its entry, so a test's backup Jobs run the code
// under test, with no build and no container engine. The workspace's packages resolve to their sources, as under
// `node --conditions=source`.
import { registerHooks } from 'node:module';

registerHooks({ resolve: (specifier, context, nextResolve) => nextResolve(specifier, { ...context, conditions: [...context.conditions, 'source'] }) });
await import('../src/main.ts');
