// npm run soak -- [--duration 60m] [--cluster local|kind] [--seed N] [--out DIR]: all three operators on one cluster
// under a workload and seeded faults; the last line printed is the path of the JSON report; exit 0 only with no
// violation. Ctrl-C (or SIGTERM) stops the run and everything it started.
import { parseSoakOptions, USAGE } from './options.ts';
import { runSoak } from './run-soak.ts';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
let options;
try {
  options = parseSoakOptions(args);
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`soak: ${signal}: stopping the run and everything it started`);
    interrupted.abort();
  });
}
try {
  const outcome = await runSoak(options, interrupted.signal, (line) => { console.error(line); });
  console.log(outcome.jsonPath);
  process.exitCode = outcome.passed ? 0 : 1;
} catch (error) {
  console.error(`soak: ${(error as Error).message}`);
  process.exitCode = interrupted.signal.aborted ? 130 : 1;
}
// Everything the run started is stopped by now; a watch of the stopped cluster left retrying must not keep the
// process alive.
process.exit();
