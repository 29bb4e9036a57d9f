// What every BackupStore must do, whatever holds the bytes: run by directory-store.test.ts and s3-store.test.ts, each
// with a harness that looks at and damages the stored bytes behind the store's back, as a crash or a person would.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifestFixture } from './postgresql-fixture.ts';
import type { BackupManifest } from '../src/stores/manifest.ts';
import type { BackupKey, BackupStore, StoredData } from '../src/stores/store.ts';

export interface StoreUnderTest {
  store: BackupStore;
  /**
   * What is stored for `default/<postgresql>`, sorted: names such as `foodb-1.dump` and `foodb-1.manifest.json`, and
   * `<name> (unfinished)` for a write in progress or left by a crash.
   */
  storedNames(postgresql: string): Promise<string[]>;
  /** Stores `content` as `default/<postgresql>/<name>`, replacing what was there. */
  putRaw(postgresql: string, name: string, content: string): Promise<void>;
  readRaw(postgresql: string, name: string): Promise<string>;
  removeRaw(postgresql: string, name: string): Promise<void>;
  /** Leaves what a crash in the middle of writing the dump of `backup` leaves. */
  leaveUnfinishedWrite(key: BackupKey): Promise<void>;
  /** The store confirms the bytes it took as it takes them: `write` reports `confirmedByStore: true`. */
  confirmsWrites: boolean;
  close(): Promise<void>;
}

export const key = (backup: string, postgresql = 'foodb', namespace = 'default'): BackupKey => ({ namespace, postgresql, backup });

/** Bytes arriving as from a pipe: one chunk per turn of the event loop. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    await nextTurn();
    yield Buffer.from(part);
  }
}

export function manifestFor(k: BackupKey, stored: StoredData, finishedAt = '2025-01-01T00:05:00.000Z'): BackupManifest {
  return manifestFixture({
    key: { ...k },
    startedAt: '2025-01-01T00:05:00.000Z',
    finishedAt,
    verifiedAt: finishedAt,
    size: stored.size,
    sha256: stored.sha256,
  });
}

export function backupStoreContract(open: () => Promise<StoreUnderTest>): void {
  let subject: StoreUnderTest;
  let store: BackupStore;
  beforeEach(async () => {
    subject = await open();
    store = subject.store;
  });
  afterEach(async () => {
    await subject.close();
  });

  async function publish(k: BackupKey, content: string, finishedAt?: string): Promise<BackupManifest> {
    const manifest = manifestFor(k, await store.write(k, chunks(content)), finishedAt);
    await store.finalize(manifest);
    return manifest;
  }

  const namesOf = (postgresql = 'foodb'): Promise<string[]> => subject.storedNames(postgresql);

  describe('the BackupStore contract', () => {
    it('stores data with its size and SHA-256, and publishes it as a backup only once the manifest is written', async () => {
      const k = key('foodb-1');
      const stored = await store.write(k, chunks('hello ', 'world'));
      const digest = { size: 11, sha256: createHash('sha256').update('hello world').digest('hex') };
      expect(stored).toEqual(subject.confirmsWrites ? { ...digest, confirmedByStore: true } : digest);
      // Stored but not yet a backup.
      expect(await namesOf()).toEqual(['foodb-1.dump']);
      expect(await store.list()).toEqual({ backups: [], unreadable: [] });
      expect(await store.manifest(k)).toBeUndefined();

      const manifest = manifestFor(k, stored);
      await store.finalize(manifest);
      expect(await namesOf()).toEqual(['foodb-1.dump', 'foodb-1.manifest.json']);
      expect(await store.manifest(k)).toEqual(manifest);
      expect((await store.list({ namespace: 'default', postgresql: 'foodb' })).backups).toEqual([manifest]);
      let read = '';
      for await (const chunk of store.read(k)) read += Buffer.from(chunk).toString();
      expect(read).toBe('hello world');
      expect(await store.verifyChecksum(k)).toEqual({ ok: true, ...digest });
    });

    it('reads stored data back for its size and SHA-256, across many reads, with or without a manifest', async () => {
      // 3.5 MiB of bytes that differ from one MiB to the next: a reused read buffer that kept bytes of an earlier read,
      // or lost the tail of the last one, would change the SHA-256 or the size.
      const data = Buffer.alloc(3.5 * 1024 * 1024);
      for (let i = 0; i < data.length; i += 4) data.writeUInt32LE(i, i);
      const k = key('foodb-big');
      const stored = await store.write(
        k,
        (async function* () {
          yield data.subarray(0, 100_000);
          await nextTurn();
          yield data.subarray(100_000);
        })(),
      );
      const expected = { size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
      expect(stored).toEqual(subject.confirmsWrites ? { ...expected, confirmedByStore: true } : expected);
      expect(await store.digest(k)).toEqual(expected);
      await store.finalize(manifestFor(k, stored));
      expect(await store.digest(k)).toEqual(expected);
      await expect(store.digest(key('never-stored'))).rejects.toThrow(/never-stored/);
      await expect(store.digest(k, { signal: AbortSignal.abort(new Error('stop')) })).rejects.toThrow('stop');
    });

    it('leaves nothing behind when the source fails part-way (pg_dump dying)', async () => {
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('partial dump');
        await nextTurn();
        throw new Error('pg_dump exited with code 1');
      }
      await expect(store.write(key('foodb-1'), failing())).rejects.toThrow('pg_dump exited with code 1');
      expect(await namesOf()).toEqual([]);
    });

    it('leaves nothing behind when aborted, and stops reading the source', async () => {
      const controller = new AbortController();
      let sourceClosed = false;
      async function* endless(): AsyncGenerator<Uint8Array> {
        try {
          for (let i = 0; ; i += 1) {
            if (i === 3) controller.abort(new Error('reconcile timed out'));
            await nextTurn();
            yield Buffer.from('x'.repeat(1024));
          }
        } finally {
          sourceClosed = true; // dumpDatabase kills pg_dump here
        }
      }
      await expect(store.write(key('foodb-1'), endless(), { signal: controller.signal })).rejects.toThrow('reconcile timed out');
      expect(sourceClosed).toBe(true);
      expect(await namesOf()).toEqual([]);
    });

    it('never overwrites: a key that holds data or a backup is refused', async () => {
      await publish(key('foodb-1'), 'first');
      await expect(store.write(key('foodb-1'), chunks('second'))).rejects.toThrow(
        'default/foodb/foodb-1 already exists in the store; a backup is never overwritten',
      );
      await store.write(key('foodb-2'), chunks('unpublished'));
      await expect(store.write(key('foodb-2'), chunks('again'))).rejects.toThrow(/already exists/);
      expect(await store.verifyChecksum(key('foodb-1'))).toMatchObject({ ok: true, size: 5 });
    });

    it('refuses to finalize data that was not stored, or a manifest of another size', async () => {
      const stored = { size: 3, sha256: 'a'.repeat(64) };
      await expect(store.finalize(manifestFor(key('nothing'), stored))).rejects.toThrow(
        'cannot finalize default/foodb/nothing: its data was not stored',
      );
      await store.write(key('foodb-1'), chunks('four'));
      await expect(store.finalize(manifestFor(key('foodb-1'), stored))).rejects.toThrow(
        'the stored data has 4 bytes, the manifest says 3',
      );
    });

    it('lists complete backups newest first, and reports manifests it cannot trust', async () => {
      const older = await publish(key('foodb-a'), 'a', '2025-01-01T00:05:00.000Z');
      const newer = await publish(key('foodb-b'), 'b', '2025-01-01T00:10:00.000Z');
      const other = await publish(key('bardb-a', 'bardb'), 'c', '2025-01-01T00:07:00.000Z');
      await subject.putRaw('foodb', 'broken.manifest.json', '{"manifestVersion": 1');
      // A manifest copied next to another dump describes that other backup: never trusted for this one.
      await subject.putRaw('foodb', 'copied.dump', 'b');
      await subject.putRaw('foodb', 'copied.manifest.json', JSON.stringify(newer));

      const all = await store.list();
      expect(all.backups).toEqual([newer, other, older]);
      const foodb = await store.list({ namespace: 'default', postgresql: 'foodb' });
      expect(foodb.backups).toEqual([newer, older]);
      expect(foodb.unreadable).toEqual([
        { key: key('broken'), message: expect.stringMatching(/^manifest of default\/foodb\/broken: not JSON/) as string },
        {
          key: key('copied'),
          message: 'manifest of default/foodb/copied describes default/foodb/foodb-b, not the backup stored there',
        },
      ]);
      expect((await store.list({ namespace: 'elsewhere' })).backups).toEqual([]);
    });

    it('detects a damaged dump: changed bytes, truncation, missing data, a mangled manifest', async () => {
      const content = 'the quick brown fox';
      await publish(key('changed'), content);
      await publish(key('truncated'), content);
      await publish(key('missing'), content);
      await publish(key('mangled'), content);
      await subject.putRaw('foodb', 'changed.dump', content.replace('quick', 'quack'));
      await subject.putRaw('foodb', 'truncated.dump', content.slice(0, 5));
      await subject.removeRaw('foodb', 'missing.dump');
      await subject.putRaw('foodb', 'mangled.manifest.json', (await subject.readRaw('foodb', 'mangled.manifest.json')).replace('"custom"', '"plain"'));

      expect(await store.verifyChecksum(key('changed'))).toMatchObject({
        ok: false,
        problem: 'ChecksumMismatch',
        message: expect.stringMatching(/^default\/foodb\/changed: the dump's SHA-256 is [0-9a-f]{64}, its manifest says [0-9a-f]{64}$/) as string,
      });
      expect(await store.verifyChecksum(key('truncated'))).toEqual({
        ok: false,
        problem: 'SizeMismatch',
        message: 'default/foodb/truncated: the dump has 5 bytes, its manifest says 19',
      });
      expect(await store.verifyChecksum(key('missing'))).toEqual({
        ok: false,
        problem: 'DataMissing',
        message: expect.stringMatching(/^default\/foodb\/missing: the dump (file|object) is missing$/) as string,
      });
      expect(await store.verifyChecksum(key('mangled'))).toMatchObject({ ok: false, problem: 'ManifestUnreadable' });
      expect(await store.verifyChecksum(key('never-stored'))).toMatchObject({ ok: false, problem: 'ManifestMissing' });
    });

    it('deletes the manifest before the data, and tolerates what is already gone', async () => {
      await publish(key('foodb-1'), 'x');
      await store.delete(key('foodb-1'));
      expect(await namesOf()).toEqual([]);
      await store.delete(key('foodb-1'));
      await store.delete(key('foodb-1', 'never-existed'));
    });

    it('clears what a crash or a failed backup left: unfinished writes, data without a manifest, a manifest without data', async () => {
      const kept = await publish(key('complete'), 'ok');
      await store.write(key('unpublished'), chunks('no manifest'));
      await publish(key('lost-data'), 'gone');
      await subject.removeRaw('foodb', 'lost-data.dump');
      await subject.leaveUnfinishedWrite(key('crashed'));
      expect(await namesOf()).toEqual([
        'complete.dump',
        'complete.manifest.json',
        'crashed.dump (unfinished)',
        'lost-data.manifest.json',
        'unpublished.dump',
      ]);

      const removed = await store.removeIncomplete({ namespace: 'default', postgresql: 'foodb' });
      expect(removed.map((k) => k.backup).sort()).toEqual(['crashed', 'lost-data', 'unpublished']);
      expect(await namesOf()).toEqual(['complete.dump', 'complete.manifest.json']);
      expect((await store.list()).backups).toEqual([kept]);
      expect(await store.removeIncomplete({ namespace: 'default' })).toEqual([]);
    });

    it('keeps every key inside the store', async () => {
      await expect(store.write(key('../escape'), chunks('x'))).rejects.toThrow('backup name "../escape" is not a Kubernetes object name');
      await expect(store.write(key('ok', '..'), chunks('x'))).rejects.toThrow('PostgreSQL name ".." is not a Kubernetes object name');
      await expect(store.list({ namespace: 'a/b' })).rejects.toThrow('namespace "a/b" is not a Kubernetes namespace name');
      expect(() => store.read(key('.hidden'))).toThrow(/is not a Kubernetes object name/);
    });
  });
}
