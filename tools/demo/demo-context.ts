// What every demo story uses: kubectl against the demo cluster, progress output, and bounded waiting.
import { execFile } from 'node:child_process';

export interface DemoContext {
  kubeconfig: string;
  kubectlPath: string;
  /** Runs kubectl; throws with its output when it fails. */
  kubectl(args: readonly string[], input?: string): Promise<string>;
  /** Prints one step, runs it, and prints how long it took (or why it failed). */
  step<T>(title: string, run: () => Promise<T>): Promise<T>;
  /** Indented output under the current step, for what a user should see. */
  show(line: string): void;
  /** Results for the closing summary. */
  summary: { story: string; outcome: string }[];
}

export function createDemoContext(kubeconfig: string, kubectlPath: string): DemoContext {
  const kubectl = (args: readonly string[], input?: string): Promise<string> => new Promise((resolve, reject) => {
    const child = execFile(kubectlPath, args, { env: { ...process.env, KUBECONFIG: kubeconfig }, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`kubectl ${args.join(' ')}:\n${stderr || stdout}`));
      else resolve(stdout);
    });
    if (input !== undefined) child.stdin?.end(input);
  });
  return {
    kubeconfig, kubectlPath, kubectl, summary: [],
    async step(title, run) {
      process.stdout.write(`▶ ${title}\n`);
      const started = performance.now();
      try {
        const result = await run();
        process.stdout.write(`  ✓ ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
        return result;
      } catch (error) {
        process.stdout.write(`  ✗ ${error instanceof Error ? error.message : String(error)}\n`);
        throw error;
      }
    },
    show(line) {
      process.stdout.write(`    ${line}\n`);
    },
  };
}

/** Polls until `check` returns a value, within `timeoutMs`; the error names what was awaited. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`gave up waiting for ${what}${last instanceof Error ? ` (${last.message})` : ''}`);
}
