import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher as UndiciDispatcher, ProxyAgent as UndiciProxyAgent } from 'undici';

/*
 * The parts of undici the client uses, each loaded from its own module. undici's entry point also loads fetch,
 * WebSocket, EventSource, the cache stores and the mocks, with the built-in modules they need: memory an operator
 * would hold from its start without ever using it. undici's package has no "exports" map, so its files are importable
 * by path; undici-parts.test.ts checks that they are the classes its entry point exports, so an upgrade that moves them
 * fails a test, not an operator's start.
 */
const requireUndici = createRequire(import.meta.url);

// What undici's entry point does before anything else: every dispatcher gets request, stream, pipeline, upgrade and
// connect. ProxyAgent itself calls connect on the pool it opens its tunnels through.
const Dispatcher = requireUndici('undici/lib/dispatcher/dispatcher.js') as typeof UndiciDispatcher;
Object.assign(Dispatcher.prototype, requireUndici('undici/lib/api/index.js'));

export const Agent = requireUndici('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export const ProxyAgent = requireUndici('undici/lib/dispatcher/proxy-agent.js') as typeof UndiciProxyAgent;
