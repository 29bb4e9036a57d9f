// testkit's SeaweedFS: a real S3-compatible server on loopback, with one identity and one bucket, gone after stop.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { Agent, fetch as fetchVia } from 'undici';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSeaweedFs, type RunningSeaweedFs } from '../src/seaweedfs.ts';
import { signedS3Request } from '../src/seaweedfs-s3-request.ts';

let seaweed: RunningSeaweedFs;

// weed is built once per machine by `npm run provision`, before any test.
beforeAll(async () => {
  seaweed = await startSeaweedFs({ bucket: 'testkit-bucket' });
});
afterAll(async () => {
  await seaweed.stop();
});

test('puts and gets an object in the bucket it created, with its credentials', async () => {
  const body = randomBytes(256 * 1024);
  const path = '/testkit-bucket/some/key with spaces.bin';
  const put = await seaweed.request({ method: 'PUT', path, body });
  expect(put.status, await put.clone().text()).toBe(200);
  const get = await seaweed.request({ method: 'GET', path });
  expect(get.status).toBe(200);
  expect(Buffer.from(await get.arrayBuffer()).equals(body)).toBe(true);

  const listing = await seaweed.request({ method: 'GET', path: '/testkit-bucket', query: { 'list-type': '2', prefix: 'some/' } });
  expect(await listing.text()).toContain('<Key>some/key with spaces.bin</Key>');
});

test("reports the CPU time the server spends, which grows with the work it is given", async () => {
  const before = await seaweed.cpuSeconds();
  const started = performance.now();
  for (let i = 0; i < 4; i++) {
    const put = await seaweed.request({ method: 'PUT', path: `/testkit-bucket/cpu/${String(i)}.bin`, body: randomBytes(8 * 1024 * 1024) });
    expect(put.status).toBe(200);
  }
  const spent = (await seaweed.cpuSeconds()) - before;
  expect(spent).toBeGreaterThan(0);
  // At most every core of this machine for the whole time (plus a tick of rounding).
  expect(spent).toBeLessThanOrEqual(((performance.now() - started) / 1000) * availableParallelism() + 0.01);
});

test('refuses anonymous requests and a wrong secret', async () => {
  const anonymous = await fetch(`${seaweed.endpoint}/testkit-bucket/some/key%20with%20spaces.bin`);
  expect(anonymous.status).toBe(403);
  const wrongSecret = await signedS3Request({
    endpoint: seaweed.endpoint,
    region: seaweed.region,
    credentials: { accessKeyId: seaweed.credentials.accessKeyId, secretAccessKey: 'not-the-secret' },
    method: 'GET',
    path: '/testkit-bucket',
  });
  expect(wrongSecret.status).toBe(403);
  expect(await wrongSecret.text()).toContain('SignatureDoesNotMatch');
});

test('serves the same S3 over TLS, with a certificate only its own CA vouches for', async () => {
  await expect(fetch(seaweed.httpsEndpoint)).rejects.toThrow();
  const trusting = new Agent({ connect: { ca: seaweed.caPem } });
  const answer = await fetchVia(`${seaweed.httpsEndpoint}/testkit-bucket`, { dispatcher: trusting });
  // Anonymous, so refused, but by SeaweedFS over a verified TLS connection.
  expect(answer.status).toBe(403);
  await trusting.close();
});

test('stop ends the server and removes its data', async () => {
  const other = await startSeaweedFs();
  expect(other.bucket).toBe('backups');
  expect((await other.request({ method: 'GET', path: '/backups' })).status).toBe(200);
  await other.stop();
  await expect(fetch(other.endpoint)).rejects.toThrow();
  expect(existsSync(dirname(other.logFile))).toBe(false);
});

test('an interruption refuses connections until it is resumed, and the objects are still there after', async () => {
  const path = '/testkit-bucket/survives/an-outage.txt';
  expect((await seaweed.request({ method: 'PUT', path, body: Buffer.from('kept') })).status).toBe(200);
  const outage = await seaweed.interrupt();
  await expect(seaweed.request({ method: 'GET', path })).rejects.toThrow();
  await outage.resume();
  const after = await seaweed.request({ method: 'GET', path });
  expect(after.status).toBe(200);
  expect(await after.text()).toBe('kept');
});
