// A StoreUnderTest over a DirectoryBackupStore in a new temporary directory: the stored files are looked at and damaged
// directly. Used for the directory store itself and for the backup store service in front of one.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryBackupStore } from '../src/stores/directory-store.ts';
import type { StoreUnderTest } from './backup-store-contract.ts';

// Unfinished writes are `.<backup>.dump.<uuid>.tmp` files (directory-store.ts).
const TEMP_FILE = /^\.(.+\.dump)\.[0-9a-f-]{36}\.tmp$/;

export async function directoryStoreUnderTest(): Promise<StoreUnderTest & { store: DirectoryBackupStore }> {
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
    // A file it wrote and fsynced is read back to be checked.
    confirmsWrites: false,
    close: () => rm(root, { recursive: true, force: true }),
  };
}
