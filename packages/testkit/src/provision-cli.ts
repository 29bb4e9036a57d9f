// npm run provision [-- TOOL...]: builds, once per machine, every tool the tests need that is missing (all of them by
// default; see provisioned-tools.ts for the names). `npm test` runs it before any test; the demo, the cluster CLI and
// the benchmarks run it for what they need.
import { provision } from './provision.ts';
import { PROVISIONED_TOOL_NAMES } from './provisioned-tools.ts';

const asked = process.argv.slice(2);
if (asked.includes('--help') || asked.includes('-h')) {
  console.log(`usage: npm run provision [-- TOOL...]\n  TOOL: ${PROVISIONED_TOOL_NAMES.join(', ')} (default: all)\n  PROVISION_JOBS: how many builds run at once (default: the cores, at least 2)`);
  process.exit(0);
}
try {
  const result = await provision({ tools: asked.length > 0 ? asked : PROVISIONED_TOOL_NAMES });
  for (const failure of result.failures) {
    console.error(`\nprovision: FAILED to build ${failure.tools.join(', ')} (bash ${failure.script}, exit ${failure.code}); the end of its output:`);
    console.error(failure.tail.map((line) => `  ${line}`).join('\n'));
  }
  if (result.failures.length > 0) {
    console.error(`\nprovision: the tests need ${result.failures.flatMap((f) => f.tools).join(', ')}; fix what the output above says and run \`npm run provision\` again (what was built is kept).`);
    process.exitCode = 1;
  } else {
    const present = Object.keys(result.found).length;
    console.error(result.built.length > 0
      ? `provision: built ${result.built.join(', ')} in ${Math.round(result.seconds)} s; all ${present} tools are on this machine`
      : `provision: all ${present} tools are on this machine`);
  }
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
}
