// The S3 store against a real SeaweedFS (testkit builds it once per machine and starts it on loopback). What is stored
// is looked at through testkit's own signed requests, not through the code under test.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, startSeaweedFs, type RunningSeaweedFs } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BackupStore, type S3BackupStoreOptions } from './s3-store.ts';
import { S3StoreError } from './s3-store-errors.ts';
import { MIN_PART_BYTES } from './s3-store-upload.ts';
import { backupStoreContract, chunks, key, manifestFor, nextTurn } from '../../test/backup-store-contract.ts';

let seaweed: RunningSeaweedFs;

// weed is built once per machine by `npm run provision`, before any test.
beforeAll(async () => {
  seaweed = await startSeaweedFs();
});
afterAll(async () => {
  await seaweed.stop();
});

/** A prefix of its own for each test, so that tests sharing the bucket never see each other's objects. */
const freshPrefix = (): string => `test-${randomBytes(6).toString('hex')}/`;

function optionsFor(prefix: string): S3BackupStoreOptions {
  return {
    bucket: seaweed.bucket,
    prefix,
    endpoint: seaweed.endpoint,
    region: seaweed.region,
    forcePathStyle: true,
    credentials: seaweed.credentials,
    // The smallest S3 allows, so that a few MiB make a multipart upload.
    partBytes: MIN_PART_BYTES,
  };
}

async function ok(response: Promise<Response>): Promise<string> {
  const answer = await response;
  const text = await answer.text();
  if (!answer.ok) throw new Error(`S3 answered ${answer.status}: ${text}`);
  return text;
}

const keysIn = (xml: string): string[] => [...xml.matchAll(/<Key>(.*?)<\/Key>/g)].map((m) => m[1] ?? '');

/** Object names and incomplete multipart uploads under `prefix`, seen from outside the store. */
async function storedUnder(prefix: string): Promise<string[]> {
  const objects = keysIn(await ok(seaweed.request({ method: 'GET', path: `/${seaweed.bucket}`, query: { 'list-type': '2', prefix } })));
  const uploads = keysIn(await ok(seaweed.request({ method: 'GET', path: `/${seaweed.bucket}`, query: { uploads: '', prefix } })));
  const relative = (name: string): string => name.slice(prefix.length);
  return [...objects.map(relative), ...uploads.map((name) => `${relative(name)} (unfinished)`)].sort();
}

/**
 * A reverse proxy in front of SeaweedFS that passes everything through, except that a completed object's ETag (of a
 * PutObject, or in a CompleteMultipartUpload's answer) is not the MD5 S3 usually makes it: what AWS answers for an
 * object encrypted with SSE-KMS. Requests keep their Host header, so their signatures still hold.
 */
async function proxyWithOpaqueEtags(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const opaque = '"8a0f7c2e5d6b4a3918f7e6d5c4b3a291"';
  const server = createServer((incoming, answer) => {
    const url = new URL(incoming.url ?? '/', target);
    const completesObject = (incoming.method === 'PUT' && !url.searchParams.has('partNumber')) ||
      (incoming.method === 'POST' && url.searchParams.has('uploadId'));
    const upstream = request(url, { method: incoming.method, headers: incoming.headers }, (response) => {
      const body: Buffer[] = [];
      response.on('data', (chunk: Buffer) => body.push(chunk));
      response.on('end', () => {
        let content = Buffer.concat(body);
        const headers: IncomingHttpHeaders = { ...response.headers };
        if (completesObject && response.statusCode === 200) {
          if (headers.etag !== undefined) headers.etag = opaque;
          content = Buffer.from(content.toString('utf8').replace(/<ETag>[^<]*<\/ETag>/, `<ETag>${opaque.replaceAll('"', '&quot;')}</ETag>`));
        }
        headers['content-length'] = String(content.byteLength);
        delete headers['transfer-encoding'];
        answer.writeHead(response.statusCode ?? 502, headers);
        answer.end(content);
      });
    });
    upstream.on('error', (error) => { answer.destroy(error); });
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

describe('S3BackupStore', () => {
  backupStoreContract(() => {
    const prefix = freshPrefix();
    const object = (postgresql: string, name: string): string => `/${seaweed.bucket}/${prefix}default/${postgresql}/${name}`;
    return Promise.resolve({
      store: new S3BackupStore(optionsFor(prefix)),
      storedNames: (postgresql) => storedUnder(`${prefix}default/${postgresql}/`),
      putRaw: async (postgresql, name, content) => {
        await ok(seaweed.request({ method: 'PUT', path: object(postgresql, name), body: Buffer.from(content) }));
      },
      readRaw: (postgresql, name) => ok(seaweed.request({ method: 'GET', path: object(postgresql, name) })),
      removeRaw: async (postgresql, name) => {
        await ok(seaweed.request({ method: 'DELETE', path: object(postgresql, name) }));
      },
      leaveUnfinishedWrite: async (k) => {
        const path = object(k.postgresql, `${k.backup}.dump`);
        const created = await ok(seaweed.request({ method: 'POST', path, query: { uploads: '' } }));
        const uploadId = /<UploadId>(.*?)<\/UploadId>/.exec(created)?.[1] ?? '';
        const part = Buffer.alloc(MIN_PART_BYTES, 'half a dump');
        await ok(seaweed.request({ method: 'PUT', path, query: { partNumber: '1', uploadId }, body: part }));
      },
      // Its ETags are the MD5s of what it took (s3-store-upload.ts).
      confirmsWrites: true,
      // Nothing to clear: the prefix is this test's alone, and SeaweedFS's data goes when it stops.
      close: () => Promise.resolve(),
    });
  });

  describe('with SeaweedFS', () => {
    it('streams a dump larger than a part as a multipart upload, and reads it back', async () => {
      const prefix = freshPrefix();
      const store = new S3BackupStore(optionsFor(prefix));
      // 12 MiB in pipe-sized chunks: two full parts and a short last one.
      const data = randomBytes(12 * 1024 * 1024);
      async function* pipe(): AsyncGenerator<Uint8Array> {
        for (let offset = 0; offset < data.length; offset += 64 * 1024) {
          yield data.subarray(offset, offset + 64 * 1024);
          if (offset % (1024 * 1024) === 0) await nextTurn();
        }
      }
      const k = key('foodb-big');
      const expected = { size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
      // SeaweedFS checked each part's MD5 and named the object by them: the bytes sent are the bytes it holds.
      expect(await store.write(k, pipe())).toEqual({ ...expected, confirmedByStore: true });
      expect(await store.digest(k)).toEqual(expected);
      const head = await seaweed.request({ method: 'HEAD', path: `/${seaweed.bucket}/${prefix}default/foodb/foodb-big.dump` });
      // A multipart object's ETag ends with its part count.
      expect(head.headers.get('etag')).toMatch(/-3"$/);
      await store.finalize(manifestFor(k, expected));
      expect(await store.verifyChecksum(k)).toEqual({ ok: true, ...expected });
    });

    it('does not claim to hold the bytes when the ETag it answers is not the MD5 of what was sent', async () => {
      const proxy = await proxyWithOpaqueEtags(seaweed.endpoint);
      try {
        const store = new S3BackupStore({ ...optionsFor(freshPrefix()), endpoint: proxy.url });
        // One PutObject, and a multipart upload of two parts.
        for (const [name, data] of [['foodb-small', randomBytes(1000)], ['foodb-large', randomBytes(MIN_PART_BYTES + 1000)]] as const) {
          const expected = { size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
          // Not confirmed: the dump is read back before it is published (read-back.ts). The upload itself went well.
          expect(await store.write(key(name), (async function* () { await nextTurn(); yield data; })())).toEqual({ ...expected, confirmedByStore: false });
          expect(await store.digest(key(name))).toEqual(expected);
        }
      } finally {
        await proxy.close();
      }
    });

    it('aborts the multipart upload when the dump fails after parts were sent: nothing listed, nothing kept', async () => {
      const prefix = freshPrefix();
      const store = new S3BackupStore(optionsFor(prefix));
      let sent = 0;
      async function* failsLate(): AsyncGenerator<Uint8Array> {
        for (; sent < 2.5 * MIN_PART_BYTES; sent += 1024 * 1024) {
          await nextTurn();
          yield randomBytes(1024 * 1024);
        }
        throw new Error('pg_dump exited with code 1');
      }
      await expect(store.write(key('foodb-1'), failsLate())).rejects.toThrow('pg_dump exited with code 1');
      expect(sent).toBeGreaterThan(2 * MIN_PART_BYTES);
      expect(await storedUnder(prefix)).toEqual([]);
      expect(await store.list()).toEqual({ backups: [], unreadable: [] });
    });

    it('aborts the multipart upload when the signal fires while parts are being sent', async () => {
      const prefix = freshPrefix();
      const store = new S3BackupStore(optionsFor(prefix));
      const controller = new AbortController();
      let sourceClosed = false;
      async function* endless(): AsyncGenerator<Uint8Array> {
        try {
          for (let sent = 0; ; sent += 1024 * 1024) {
            if (sent === 2 * MIN_PART_BYTES + 1024 * 1024) controller.abort(new Error('reconcile timed out'));
            await nextTurn();
            yield randomBytes(1024 * 1024);
          }
        } finally {
          sourceClosed = true;
        }
      }
      await expect(store.write(key('foodb-1'), endless(), { signal: controller.signal })).rejects.toThrow('reconcile timed out');
      expect(sourceClosed).toBe(true);
      expect(await storedUnder(prefix)).toEqual([]);
    });

    it('says which credentials S3 refused, without printing the secret', async () => {
      const secret = `wrong-${randomBytes(12).toString('hex')}`;
      const wrongSecret = new S3BackupStore({
        ...optionsFor(freshPrefix()),
        credentials: { accessKeyId: seaweed.credentials.accessKeyId, secretAccessKey: secret },
      });
      const refused = await wrongSecret.write(key('foodb-1'), chunks('x')).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(S3StoreError);
      expect(refused).toMatchObject({ problem: 'CredentialsRejected' });
      const message = (refused as Error).message;
      expect(message).toContain(
        `S3 at ${seaweed.endpoint} rejected the signature of access key id ${seaweed.credentials.accessKeyId}: ` +
          "the secretAccessKey in the credentials is not that key's secret",
      );
      expect(message).not.toContain(secret);
      expect(JSON.stringify(refused)).not.toContain(secret);

      const unknownKey = new S3BackupStore({
        ...optionsFor(freshPrefix()),
        credentials: { accessKeyId: 'nobody', secretAccessKey: secret },
      });
      const unknown = await unknownKey.list().catch((error: unknown) => error);
      expect(unknown).toMatchObject({ problem: 'CredentialsRejected' });
      expect((unknown as Error).message).toContain(`S3 at ${seaweed.endpoint} does not know the access key id nobody`);
      expect((unknown as Error).message).not.toContain(secret);
    });

    it('says so when the endpoint does not answer or the bucket does not exist', async () => {
      const nothingListening = `http://127.0.0.1:${await freePort()}`;
      const unreachable = new S3BackupStore({ ...optionsFor(freshPrefix()), endpoint: nothingListening });
      const error = await unreachable.list().catch((e: unknown) => e);
      expect(error).toMatchObject({ problem: 'Unreachable' });
      // The cause once, in the client's words, then what was being done.
      expect((error as Error).message).toMatch(new RegExp(
        `^cannot reach S3 at ${nothingListening} \\(connect ECONNREFUSED ${nothingListening.slice('http://'.length)}\\): check the endpoint URL, and that the store is up and reachable from this pod \\(listing [^;()]+\\)$`,
      ));

      const noBucket = new S3BackupStore({ ...optionsFor(freshPrefix()), bucket: 'no-such-bucket' });
      // Not write: SeaweedFS creates a missing bucket on upload for an admin identity, as testkit's is.
      const missing = await noBucket.list().catch((e: unknown) => e);
      expect(missing).toMatchObject({ problem: 'BucketMissing' });
      expect((missing as Error).message).toContain(`S3 at ${seaweed.endpoint} has no bucket no-such-bucket: create it, or fix the bucket name`);
    });

    it('verifies TLS: trusts a private CA only when given its bundle', async () => {
      const prefix = freshPrefix();
      const untrusted = new S3BackupStore({ ...optionsFor(prefix), endpoint: seaweed.httpsEndpoint });
      const refused = await untrusted.write(key('foodb-1'), chunks('x')).catch((e: unknown) => e);
      expect(refused).toMatchObject({ problem: 'TlsUntrusted' });
      const message = (refused as Error).message;
      expect(message).toMatch(
        new RegExp(`^S3 at ${seaweed.httpsEndpoint}: the server's TLS certificate was not accepted \\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN): [^()]+\\): if the store uses a private CA, give its certificate as the CA bundle \\([^;]+\\)$`),
      );
      // Said once: the code is not repeated in a detail after it.
      expect(message.match(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN/g)).toHaveLength(1);

      const trusting = new S3BackupStore({ ...optionsFor(prefix), endpoint: seaweed.httpsEndpoint, caBundle: seaweed.caPem });
      const stored = await trusting.write(key('foodb-1'), chunks('over TLS'));
      await trusting.finalize(manifestFor(key('foodb-1'), stored));
      expect(await trusting.verifyChecksum(key('foodb-1'))).toEqual({ ok: true, size: stored.size, sha256: stored.sha256 });
    });

    it('refuses a CA bundle for an endpoint that is not https, rather than ignore it', () => {
      expect(() => new S3BackupStore({ ...optionsFor(''), caBundle: '-----BEGIN CERTIFICATE-----' })).toThrow(
        `a CA bundle was given for the S3 endpoint ${seaweed.endpoint}, which is not https: use its https URL`,
      );
    });
  });
});
