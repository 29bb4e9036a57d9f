/**
 * The built-in maintenance page server: `node dist/page-server/main.js --port=8080 …` (flags in flags.ts). The
 * operator runs it when a MaintPage has no `maintpageimage`. SIGTERM (or SIGINT) stops it gracefully: no new
 * connections, in-flight requests finish, exit status 0.
 */
import { PageServerFlagError, parsePageServerFlags } from './flags.ts';
import { jsonLineLog } from './log.ts';
import { startPageServer } from './page-server.ts';

const log = jsonLineLog((line) => process.stdout.write(line));

try {
  const options = parsePageServerFlags(process.argv.slice(2), process.env);
  const server = await startPageServer(options, { log });
  const stop = (signal: NodeJS.Signals): void => {
    log('info', 'shutting down', { signal });
    void server.close().then(() => {
      log('info', 'stopped');
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} catch (error) {
  if (error instanceof PageServerFlagError) {
    process.stderr.write(`maintpage-page-server: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    log('error', 'cannot start', { error: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
  }
}
