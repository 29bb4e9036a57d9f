import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import type { V1Container, V1Probe } from '@kubernetes/client-node';
import { Agent, request } from 'undici';

export interface ProbeTarget {
  podIP: string;
  container: V1Container;
  /** Environment and working directory for exec probes. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Maps paths in exec probe commands to the container's mounts on this machine. */
  translate: (arg: string) => string;
}

export interface ProbeResult {
  ok: boolean;
  message: string;
}

// The kubelet does not verify certificates of HTTPS probes; neither do we.
const insecureAgent = new Agent({ connect: { rejectUnauthorized: false } });

function resolvePort(port: number | string, container: V1Container): number {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  const named = container.ports?.find((p) => p.name === port);
  if (!named) throw new Error(`probe names port "${port}" but the container declares no such port`);
  return named.containerPort;
}

/** Runs one probe attempt as the kubelet would, bounded by the probe's timeoutSeconds (default 1 s). */
export async function runProbe(probe: V1Probe, target: ProbeTarget): Promise<ProbeResult> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  try {
    if (probe.httpGet) {
      const get = probe.httpGet;
      const scheme = (get.scheme ?? 'HTTP').toLowerCase();
      const url = `${scheme}://${get.host ?? target.podIP}:${resolvePort(get.port, target.container)}${get.path ?? '/'}`;
      const headers = Object.fromEntries((get.httpHeaders ?? []).map((h) => [h.name, h.value]));
      const response = await request(url, { headers: { 'user-agent': 'kube-probe/1.36', ...headers }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, dispatcher: scheme === 'https' ? insecureAgent : undefined });
      await response.body.dump();
      const ok = response.statusCode >= 200 && response.statusCode < 400;
      return { ok, message: `HTTP probe failed with statuscode: ${response.statusCode}` };
    }
    if (probe.tcpSocket) {
      const port = resolvePort(probe.tcpSocket.port, target.container);
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host: probe.tcpSocket?.host ?? target.podIP, port, timeout: timeoutMs });
        socket.once('connect', () => { socket.destroy(); resolve(); });
        socket.once('timeout', () => { socket.destroy(); reject(new Error('timeout')); });
        socket.once('error', reject);
      });
      return { ok: true, message: '' };
    }
    if (probe.exec?.command?.length) {
      const [command, ...args] = probe.exec.command.map(target.translate);
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(command ?? '', args, { env: target.env, cwd: target.cwd, stdio: 'ignore', timeout: timeoutMs });
        child.once('error', () => { resolve(-1); });
        child.once('exit', (c) => { resolve(c); });
      });
      return { ok: code === 0, message: `command ${JSON.stringify(probe.exec.command)} exited with ${code}` };
    }
    return { ok: false, message: 'probe has no handler' };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
