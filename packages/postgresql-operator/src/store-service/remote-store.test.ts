import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@k8s-operators/controller-core/log';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupStoreContract, chunks, key, manifestFor } from '../../test/backup-store-contract.ts';
import { directoryStoreUnderTest } from '../../test/directory-store-harness.ts';
import type { BackupStore } from '../stores/store.ts';
import { RemoteBackupStore, RemoteStoreError } from './remote-store.ts';
import { storeRequestListener } from './store-server.ts';

const OPERATOR = 'system:serviceaccount:postgresql-operator-system:postgresql-operator-controller-manager';
const FOODB_JOB = 'system:serviceaccount:default:foodb-backup';

/** Tokens and whose they are, as the API server would answer a TokenReview. */
const tokens: Record<string, string> = { 'operator-token': OPERATOR, 'foodb-job-token': FOODB_JOB, 'stranger-token': 'system:serviceaccount:default:web' };
const authenticator = {
  authenticate: (token: string) => Promise.resolve(tokens[token] === undefined ? { error: 'not authenticated' } : { user: { username: tokens[token] } }),
};

async function serve(store: BackupStore): Promise<{ server: Server; url: string }> {
  const server = createServer(storeRequestListener({ store, authenticator, operatorUsername: OPERATOR, logger: createLogger({ name: 'test', level: 'silent' }) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = (server: Server): Promise<void> => new Promise((resolve) => {
  server.closeAllConnections();
  server.close(() => { resolve(); });
});
const remote = (url: string, token: string): RemoteBackupStore => new RemoteBackupStore({ endpoint: { url }, token: () => Promise.resolve(token) });

describe('the backup store service, through RemoteBackupStore', () => {
  // The operator's view: every BackupStore promise holds over HTTP, checked on the directory behind the service.
  backupStoreContract(async () => {
    const subject = await directoryStoreUnderTest();
    const { server, url } = await serve(subject.store);
    return { ...subject, store: remote(url, 'operator-token'), close: async () => { await close(server); await subject.close(); } };
  });

  describe('who may do what', () => {
    let subject: Awaited<ReturnType<typeof directoryStoreUnderTest>>;
    let server: Server;
    let url: string;
    beforeEach(async () => {
      subject = await directoryStoreUnderTest();
      ({ server, url } = await serve(subject.store));
    });
    afterEach(async () => {
      await close(server);
      await subject.close();
    });

    it("lets a backup Job write, read back and publish its own PostgreSQL's backup", async () => {
      const job = remote(url, 'foodb-job-token');
      expect(await job.removeIncomplete({ namespace: 'default', postgresql: 'foodb' })).toEqual([]);
      const stored = await job.write(key('foodb-1'), chunks('a dump'));
      expect(await job.digest(key('foodb-1'))).toEqual(stored);
      await job.finalize(manifestFor(key('foodb-1'), stored));
      expect((await job.manifest(key('foodb-1')))?.sha256).toBe(stored.sha256);
      expect(await subject.storedNames('foodb')).toEqual(['foodb-1.dump', 'foodb-1.manifest.json']);
    });

    it('lets a backup Job discard what its failed backup stored, but not a published backup', async () => {
      const job = remote(url, 'foodb-job-token');
      await job.finalize(manifestFor(key('foodb-1'), await job.write(key('foodb-1'), chunks('a verified dump'))));
      await job.write(key('foodb-2'), chunks('a dump that failed verification'));
      await job.delete(key('foodb-2'));
      await expect(job.delete(key('foodb-1'))).rejects.toThrow(/refused delete \(403\).*may not delete default\/foodb\/foodb-1: it is a published backup, which only the operator deletes/);
      expect(await subject.storedNames('foodb')).toEqual(['foodb-1.dump', 'foodb-1.manifest.json']);
    });

    it("refuses a backup Job another database's backups, and listing", async () => {
      await subject.store.write(key('bardb-1', 'bardb'), chunks('bar'));
      const job = remote(url, 'foodb-job-token');
      await expect(job.write(key('bardb-2', 'bardb'), chunks('x'))).rejects.toThrow(/refused write \(403\).*only touch backups of PostgreSQL foodb in namespace default/);
      await expect(job.digest(key('foodb-1', 'foodb', 'other'))).rejects.toThrow(/\(403\)/);
      await expect(job.list({ namespace: 'default' })).rejects.toThrow(/may not list/);
      await expect(job.delete(key('bardb-1', 'bardb'))).rejects.toThrow(/may only touch backups of PostgreSQL foodb/);
      expect(await subject.storedNames('bardb')).toEqual(['bardb-1.dump']);
    });

    it('refuses callers without a token for its audience, and other ServiceAccounts', async () => {
      await expect(remote(url, 'a-token-for-the-api-server').list()).rejects.toThrow(/\(401\).*not accepted/);
      await expect(remote(url, 'stranger-token').list()).rejects.toThrow(/\(403\).*system:serviceaccount:default:web may not use the backup store/);
      const answer = await fetch(`${url}/v1/backups`);
      expect(answer.status).toBe(401);
      // The kubelet's probe needs no token, and learns nothing about the backups.
      expect(await (await fetch(`${url}/healthz`)).text()).toBe('ok\n');
    });

    it('keeps nothing of an upload whose source fails, and passes the source error on as it is', async () => {
      class PgDumpFailed extends Error {}
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield* chunks('the first part of a dump');
        throw new PgDumpFailed('pg_dump: error: connection lost');
      }
      const operator = remote(url, 'operator-token');
      await expect(operator.write(key('foodb-1'), failing())).rejects.toBeInstanceOf(PgDumpFailed);
      // The service sees the upload broken off and discards it; give it the moment it takes to notice.
      await expect.poll(() => subject.storedNames('foodb')).toEqual([]);
    });

    it('says why an upload failed when the connection breaks, and closes the source, which need not have a throw method', async () => {
      // A server that takes the first part of the body and then drops the connection, as a restarted service would.
      const dropping = createServer((request) => { request.once('data', () => { request.socket.destroy(); }); });
      await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
      // Like the tee's branches (run-backup.ts): next and return only, and return ends a read that waits. The second
      // chunk never comes on its own, as when pg_dump waits for a lock.
      let closed = false;
      const source: AsyncIterable<Uint8Array> = {
        [Symbol.asyncIterator]: () => {
          let reads = 0;
          let stopWaiting = (): void => undefined;
          return {
            next: () => reads++ === 0
              ? Promise.resolve({ done: false, value: Buffer.from('the first part of a dump') })
              : new Promise<IteratorResult<Uint8Array>>((_resolve, reject) => { stopWaiting = () => { reject(new Error('stopped')); }; }),
            return: () => { closed = true; stopWaiting(); return Promise.resolve({ done: true, value: undefined }); },
          };
        },
      };
      try {
        const dropped = `http://127.0.0.1:${(dropping.address() as AddressInfo).port}`;
        await expect(remote(dropped, 'operator-token').write(key('foodb-1'), source)).rejects.toThrow(/cannot reach the backup store at http:\/\/127\.0\.0\.1:\d+ \((ECONNRESET|EPIPE)\)/);
        expect(closed).toBe(true);
      } finally {
        await close(dropping);
      }
    });

    it('breaks off a read whose data fails half-way, so a short read is never the whole dump', async () => {
      const broken: BackupStore = Object.create(subject.store, {
        read: {
          value: async function* () {
            yield* chunks('the first part');
            throw new Error('EIO: i/o error, read');
          },
        },
      }) as BackupStore;
      const brokenServer = await serve(broken);
      try {
        const received: string[] = [];
        const reading = (async () => {
          for await (const chunk of remote(brokenServer.url, 'operator-token').read(key('foodb-1'))) received.push(Buffer.from(chunk).toString());
        })();
        await expect(reading).rejects.toBeInstanceOf(RemoteStoreError);
      } finally {
        await close(brokenServer.server);
      }
    });

    it('says when the service cannot be reached', async () => {
      await close(server);
      await expect(remote(url, 'operator-token').list()).rejects.toThrow(/cannot reach the backup store at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    });
  });
});
