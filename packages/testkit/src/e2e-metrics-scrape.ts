import { request } from 'node:https';
import type { E2eCluster } from './e2e.ts';

/**
 * A GET of one operator Pod's `/metrics` as its ServiceMonitor scrapes it: HTTPS on 8443 with the bearer `token` of a
 * ServiceAccount bound to the operator's metrics-reader ClusterRole. The certificate is the operator's self-signed one,
 * which the ServiceMonitor does not verify either. Where this machine cannot reach the Pod network, curl runs in the
 * cluster instead. Rejects on any answer but 200, with the status and body (the operator says why it refused).
 */
export async function scrapePodMetrics(cluster: Pick<E2eCluster, 'podNetworkFromHost' | 'curlInCluster'>, ip: string, token: string): Promise<string> {
  const url = `https://${ip}:8443/metrics`;
  if (!cluster.podNetworkFromHost) return cluster.curlInCluster(['-sSfk', '--max-time', '5', '-H', `Authorization: Bearer ${token}`, url]);
  return new Promise((resolve, reject) => {
    const req = request({ host: ip, port: 8443, path: '/metrics', rejectUnauthorized: false, headers: { authorization: `Bearer ${token}` }, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => { if (res.statusCode === 200) resolve(body); else reject(new Error(`GET ${url}: ${String(res.statusCode)} ${body}`)); });
    });
    req.on('timeout', () => { req.destroy(new Error(`GET ${url} timed out`)); });
    req.on('error', reject);
    req.end();
  });
}
