// The backup store service's process (the operator image's entry point with `backup-store` first): the backup volume
// mounted at --backup-dir, served over HTTPS to the operator and backup Jobs (store-server.ts). SIGTERM stops taking
// requests and lets those in flight finish, up to the grace period; a write still running then is discarded.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeClient, MetricsAuthorizer, TokenAuthenticator } from '@k8s-operators/controller-core';
import { createLogger } from '@k8s-operators/controller-core/log';
import { DEFAULT_BACKUP_DIRECTORY, DirectoryBackupStore } from '../stores/directory-store.ts';
import { createBackupStoreMetrics } from '../metrics/backup-store-metrics.ts';
import { BACKUP_STORE_AUDIENCE, BACKUP_STORE_PORT, IDLE_CONNECTION_MS } from './store-protocol.ts';
import { storeRequestListener } from './store-server.ts';

/** As deploy/postgresql-operator names it: the operator's metrics-reader, so one binding lets Prometheus scrape both. */
const METRICS_READER_ROLE = 'postgresql-operator-metrics-reader';

const USAGE = `Usage: postgresql-operator backup-store --operator-service-account=NAMESPACE:NAME [options]
Serves the backup volume to the operator and its backup Jobs.
  --backup-dir=DIR                  where the backup volume is mounted (default ${DEFAULT_BACKUP_DIRECTORY})
  --bind-address=[HOST]:PORT        where to listen (default :${BACKUP_STORE_PORT})
  --cert-dir=DIR                    tls.crt and tls.key to serve HTTPS with (a kubernetes.io/tls Secret's mount)
  --insecure-plain-http             serve plain HTTP instead (tests on one machine only: dumps cross the network)
  --operator-service-account=[NS:]SA  the operator's ServiceAccount, the one caller allowed everything
                                    (without NS: in $POD_NAMESPACE)
  --audience=NAME                   the audience callers' tokens must be bound to (default ${BACKUP_STORE_AUDIENCE})
  --metrics-reader-role=NAME        the ClusterRole that lets a scraper get /metrics, named when one is refused
                                    (default ${METRICS_READER_ROLE})
  --kubeconfig=FILE                 the API server to check tokens with (default: in-cluster)
  --log-level=LEVEL                 debug, info (default), warn, error
`;

const { values } = parseArgs({
  args: process.argv.slice(3),
  options: {
    'backup-dir': { type: 'string', default: DEFAULT_BACKUP_DIRECTORY },
    'bind-address': { type: 'string', default: `:${BACKUP_STORE_PORT}` },
    'cert-dir': { type: 'string' },
    'insecure-plain-http': { type: 'boolean', default: false },
    'operator-service-account': { type: 'string' },
    audience: { type: 'string', default: BACKUP_STORE_AUDIENCE },
    'metrics-reader-role': { type: 'string', default: METRICS_READER_ROLE },
    kubeconfig: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const fail = (message: string): never => {
  process.stderr.write(`backup-store: ${message}\n${USAGE}`);
  process.exit(2);
};
// NAME alone is in the service's own namespace, as deploy/ runs both.
const operatorAccount = /^(?:([a-z0-9-]+):)?([a-z0-9.-]+)$/.exec(values['operator-service-account'] ?? '');
const operatorNamespace = operatorAccount?.[1] ?? process.env.POD_NAMESPACE;
if (operatorAccount === null || operatorNamespace === undefined) fail('--operator-service-account must be NAMESPACE:NAME (or NAME with POD_NAMESPACE set): the operator\'s ServiceAccount');
const bind = /^(.*):(\d+)$/.exec(values['bind-address']);
if (bind === null) fail(`--bind-address ${values['bind-address']} is not [HOST]:PORT`);
if (values['cert-dir'] === undefined && !values['insecure-plain-http']) fail('give --cert-dir (HTTPS), or --insecure-plain-http for a test on one machine');

const logger = createLogger({ name: 'postgresql-backup-store', level: values['log-level'] as 'info' });
const client = await KubeClient.load({ ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }) });
const listener = storeRequestListener({
  store: new DirectoryBackupStore(values['backup-dir']),
  authenticator: new TokenAuthenticator(client, { audiences: [values.audience] }),
  operatorUsername: `system:serviceaccount:${operatorNamespace ?? ''}:${operatorAccount?.[2] ?? ''}`,
  logger,
  metrics: {
    recorder: createBackupStoreMetrics(values['backup-dir']),
    authorizer: new MetricsAuthorizer(client, { readerClusterRole: values['metrics-reader-role'] }),
  },
});

let server: Server;
const certDir = values['cert-dir'];
/** How often the mounted certificate is looked at: the operator replaces it a month before it expires. */
const CERTIFICATE_CHECK_MS = 60_000;
if (certDir === undefined) {
  server = createHttpServer(listener);
} else {
  const read = async (): Promise<{ cert: string; key: string }> => ({
    cert: await readFile(join(certDir, 'tls.crt'), 'utf8'),
    key: await readFile(join(certDir, 'tls.key'), 'utf8'),
  });
  let served = await read().catch((error: unknown) => fail(`cannot read tls.crt and tls.key in --cert-dir ${certDir}: ${(error as Error).message}`));
  const https = createHttpsServer(served, listener);
  server = https;
  setInterval(() => {
    read().then((next) => {
      if (next.cert === served.cert && next.key === served.key) return;
      https.setSecureContext(next);
      served = next;
      logger.info('serving the renewed certificate');
    }, (error: unknown) => { logger.warn({ error: (error as Error).message }, 'cannot read the mounted certificate; still serving the previous one'); });
  }, CERTIFICATE_CHECK_MS).unref();
}
server.keepAliveTimeout = IDLE_CONNECTION_MS;
const host = bind?.[1] === '' ? undefined : bind?.[1];
server.listen({ port: Number(bind?.[2]), ...(host === undefined ? {} : { host }) }, () => {
  const address = server.address();
  logger.info({ address, backupDir: values['backup-dir'], tls: certDir !== undefined, audience: values.audience }, 'backup store serving');
});
server.on('error', (error) => {
  logger.error({ error: error.message }, 'backup store cannot serve');
  process.exit(1);
});

const GRACE_MS = 25_000;
process.once('SIGTERM', () => {
  logger.info('stopping: no new requests; waiting for those in flight');
  const timer = setTimeout(() => {
    logger.warn('requests still running at the end of the grace period are broken off; unfinished writes are discarded');
    server.closeAllConnections();
  }, GRACE_MS);
  timer.unref();
  server.close(() => {
    void client.close();
    logger.info('stopped');
  });
  server.closeIdleConnections();
});
