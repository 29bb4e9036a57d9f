import { mkdtemp, readFile, readdir, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirectoryBackupStore } from './directory-store.ts';
import { backupStoreContract, chunks, key } from '../../test/backup-store-contract.ts';

// Unfinished writes are `.<backup>.dump.<uuid>.tmp` files (directory-store.ts).
const TEMP_FILE = /^\.(.+\.dump)\.[0-9a-f-]{36}\.tmp$/;

describe('DirectoryBackupStore', () => {
  backupStoreContract(async () => {
    const root = await mkdtemp(join(tmpdir(), 'backup-store-'));
    const path = (postgresql: string, name = ''): string => join(root, 'default', postgresql, name);
    return {
      store: new DirectoryBackupStore(root),
      storedNames: async (postgresql) => {
        const entries = await readdir(path(postgresql)).catch(() => []);
        return entries.map((entry) => entry.replace(TEMP_FILE, '$1 (unfinished)')).sort();
      },
      putRaw: async (postgresql, name, content) => {
        await mkdir(path(postgresql), { recursive: true });
        await writeFile(path(postgresql, name), content);
      },
      readRaw: (postgresql, name) => readFile(path(postgresql, name), 'utf8'),
      removeRaw: (postgresql, name) => rm(path(postgresql, name)),
      leaveUnfinishedWrite: async (k) => {
        await mkdir(path(k.postgresql), { recursive: true });
        await writeFile(path(k.postgresql, `.${k.backup}.dump.0b7c1f3e-8a5d-4c2b-9e1f-2a3b4c5d6e7f.tmp`), 'half a dump');
      },
      close: () => rm(root, { recursive: true, force: true }),
    };
  });

  describe('on a volume', () => {
    let root: string;
    beforeEach(async () => {
      root = await mkdtemp(join(tmpdir(), 'backup-store-'));
    });
    afterEach(async () => {
      await rm(root, { recursive: true, force: true });
    });

    it('keeps dumps readable by the operator only', async () => {
      const store = new DirectoryBackupStore(root);
      await store.write(key('foodb-1'), chunks('hello'));
      // Dumps hold the application's data.
      expect((await stat(join(root, 'default', 'foodb', 'foodb-1.dump'))).mode & 0o777).toBe(0o600);
      expect((await stat(join(root, 'default', 'foodb'))).mode & 0o777).toBe(0o700);
    });

    it('says what to do when the backup volume is not mounted', async () => {
      const unmounted = new DirectoryBackupStore(join(root, 'backup'));
      await expect(unmounted.write(key('foodb-1'), chunks('x'))).rejects.toThrow(
        `backup directory ${join(root, 'backup')} does not exist: mount the backup volume (a PersistentVolumeClaim) there`,
      );
      await mkdir(join(root, 'backup'));
      await expect(unmounted.write(key('foodb-1'), chunks('x'))).resolves.toMatchObject({ size: 1 });
    });
  });
});
