import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { createLogger } from '@k8s-operators/controller-core/log';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chunks, key, manifestFor } from '../../test/backup-store-contract.ts';
import { directoryStoreUnderTest } from '../../test/directory-store-harness.ts';
import { createBackupStoreMetrics, type VolumeSpace } from '../metrics/backup-store-metrics.ts';
import { RemoteBackupStore } from './remote-store.ts';
import { storeRequestListener } from './store-server.ts';

const OPERATOR = 'system:serviceaccount:postgresql-operator-system:postgresql-operator-controller-manager';
const tokens: Record<string, string> = { 'operator-token': OPERATOR, 'foodb-job-token': 'system:serviceaccount:default:foodb-backup', 'stranger-token': 'system:serviceaccount:default:web' };
const authenticator = {
  authenticate: (token: string) => Promise.resolve(tokens[token] === undefined ? { error: 'not authenticated' } : { user: { username: tokens[token] } }),
};
/** As the operator's MetricsAuthorizer answers: 401 without a token, 403 for a caller without the reader role. */
const authorizer = {
  check: (request: IncomingMessage) => {
    const token = request.headers.authorization?.replace(/^Bearer /, '');
    if (token === undefined) return Promise.resolve({ status: 401 as const, body: 'Unauthorized: send a bearer token\n' });
    return Promise.resolve(token === 'prometheus-token' ? undefined : { status: 403 as const, body: 'Forbidden: bind the ClusterRole postgresql-operator-metrics-reader\n' });
  },
};

describe('the backup store service\'s /metrics', () => {
  let subject: Awaited<ReturnType<typeof directoryStoreUnderTest>>;
  let server: Server;
  let url: string;
  let space: VolumeSpace;
  let spaceReads = 0;

  beforeEach(async () => {
    subject = await directoryStoreUnderTest();
    space = () => Promise.resolve({ availableBytes: 7_000, sizeBytes: 10_000 });
    spaceReads = 0;
    const recorder = createBackupStoreMetrics('/backup', (directory) => { spaceReads += 1; return space(directory); });
    server = createServer(storeRequestListener({
      store: subject.store, authenticator, operatorUsername: OPERATOR, logger: createLogger({ name: 'test', level: 'silent' }), metrics: { recorder, authorizer },
    }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    await subject.close();
  });

  const scrape = async (token = 'prometheus-token'): Promise<{ status: number; body: string }> => {
    const response = await fetch(`${url}/metrics`, { headers: token === '' ? {} : { authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.text() };
  };
  const sample = (body: string, series: string): number | undefined => {
    const line = body.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  const remote = (token: string): RemoteBackupStore => new RemoteBackupStore({ endpoint: { url }, token: () => Promise.resolve(token) });

  it('counts requests by operation and status, and the bytes written and read', async () => {
    const job = remote('foodb-job-token');
    const stored = await job.write(key('foodb-1'), chunks('a dump', ' in two chunks'));
    await job.finalize(manifestFor(key('foodb-1'), stored));
    const chunksRead: Uint8Array[] = [];
    for await (const chunk of remote('operator-token').read(key('foodb-1'))) chunksRead.push(chunk);
    await expect(remote('stranger-token').list()).rejects.toThrow(/may not use the backup store/);

    const { status, body } = await scrape();
    expect(status).toBe(200);
    expect(sample(body, 'postgresql_backup_store_requests_total{operation="write",code="200"}')).toBe(1);
    expect(sample(body, 'postgresql_backup_store_requests_total{operation="finalize",code="204"}')).toBe(1);
    expect(sample(body, 'postgresql_backup_store_requests_total{operation="read",code="200"}')).toBe(1);
    expect(sample(body, 'postgresql_backup_store_requests_total{operation="list",code="403"}')).toBe(1);
    expect(sample(body, 'postgresql_backup_store_request_duration_seconds_count{operation="write"}')).toBe(1);
    expect(sample(body, 'postgresql_backup_store_received_bytes_total')).toBe(20);
    expect(sample(body, 'postgresql_backup_store_sent_bytes_total')).toBe(20);
    // The process's own, as the operator's /metrics has them.
    expect(sample(body, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it("reports the volume's space as the file system gives it at each scrape", async () => {
    const first = (await scrape()).body;
    expect(sample(first, 'postgresql_backup_store_volume_available_bytes')).toBe(7_000);
    expect(sample(first, 'postgresql_backup_store_volume_size_bytes')).toBe(10_000);
    // Both gauges from one read of the file system.
    expect(spaceReads).toBe(1);
    space = () => Promise.resolve({ availableBytes: 1_000, sizeBytes: 10_000 });
    expect(sample((await scrape()).body, 'postgresql_backup_store_volume_available_bytes')).toBe(1_000);
  });

  it('fails the scrape, saying why, when the volume cannot be read, rather than report a made-up figure', async () => {
    space = () => Promise.reject(new Error('cannot read the free space of the backup volume at /backup: EIO'));
    const { status, body } = await scrape();
    expect(status).toBe(500);
    expect(body).toContain('cannot read the free space of the backup volume at /backup');
  });

  it('refuses a scrape without a token or without the reader role, saying what to do', async () => {
    expect(await scrape('')).toEqual({ status: 401, body: 'Unauthorized: send a bearer token\n' });
    expect(await scrape('stranger-token')).toEqual({ status: 403, body: 'Forbidden: bind the ClusterRole postgresql-operator-metrics-reader\n' });
  });
});

describe('the volume space of a real file system', () => {
  const value = async (directory: string, name: string): Promise<number | undefined> =>
    (await createBackupStoreMetrics(directory).registry.getSingleMetric(name)?.get())?.values[0]?.value;

  it('is read with statfs: some space available, no more than the size', async () => {
    const available = await value(tmpdir(), 'postgresql_backup_store_volume_available_bytes');
    expect(available).toBeGreaterThan(0);
    expect(available).toBeLessThanOrEqual((await value(tmpdir(), 'postgresql_backup_store_volume_size_bytes')) ?? 0);
  });

  it('names the directory it could not read', async () => {
    await expect(value('/no/such/backup/volume', 'postgresql_backup_store_volume_available_bytes')).rejects.toThrow(/cannot read the free space of the backup volume at \/no\/such\/backup\/volume: ENOENT/);
  });
});
