import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as undici from 'undici';
import { expect, it } from 'vitest';
import { Agent, ProxyAgent } from './undici-parts.ts';

it("loads the classes undici's entry point exports", () => {
  expect(Agent).toBe(undici.Agent);
  expect(ProxyAgent).toBe(undici.ProxyAgent);
});

/**
 * What a process that imports the runtime has loaded of undici (its files, below the package), and which of the
 * methods undici's entry point gives every dispatcher an Agent has. A process of its own: this one has loaded undici's
 * entry point above.
 */
async function undiciInAFreshProcess(): Promise<{ files: string[]; methods: string[] }> {
  const url = (file: string): string => JSON.stringify(pathToFileURL(join(import.meta.dirname, file)).href);
  const script = `
    import { createRequire } from 'node:module';
    await import(${url('../index.ts')});
    const { Agent } = await import(${url('undici-parts.ts')});
    const marker = '/node_modules/undici/';
    const files = Object.keys(createRequire(process.cwd() + '/').cache)
      .filter((file) => file.includes(marker))
      .map((file) => file.slice(file.lastIndexOf(marker) + marker.length));
    const methods = ['request', 'stream', 'pipeline', 'upgrade', 'connect'].filter((name) => typeof Agent.prototype[name] === 'function');
    console.log(JSON.stringify({ files, methods }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--input-type=module', '--eval', script]);
  return JSON.parse(stdout) as { files: string[]; methods: string[] };
}

it("keeps the runtime's start lean: undici's dispatchers, not its entry point with fetch, WebSocket and the mocks", async () => {
  const { files, methods } = await undiciInAFreshProcess();
  expect(files).toContain('lib/dispatcher/agent.js'); // the check sees the undici modules the runtime does load
  expect(files).not.toContain('index.js');
  expect(files.filter((file) => /^lib\/(web|mock|cache)\//.test(file))).toEqual([]);
  // As the entry point sets them up: ProxyAgent opens its tunnels with connect.
  expect(methods).toEqual(['request', 'stream', 'pipeline', 'upgrade', 'connect']);
});
