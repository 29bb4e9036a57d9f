// Preloaded with `--import` by packagesLoadedBy (loaded-packages.ts): appends the URL of every module the process
// resolves inside a node_modules directory to the file named by TESTKIT_LOADED_PACKAGES_LOG.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const log = process.env.TESTKIT_LOADED_PACKAGES_LOG;
if (log !== undefined) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (resolved.url.includes('/node_modules/')) appendFileSync(log, `${resolved.url}\n`);
      return resolved;
    },
  });
}
