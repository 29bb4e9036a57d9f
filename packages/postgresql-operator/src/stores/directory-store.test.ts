import { mkdtemp, rm, stat, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirectoryBackupStore } from './directory-store.ts';
import { backupStoreContract, chunks, key } from '../../test/backup-store-contract.ts';
import { directoryStoreUnderTest } from '../../test/directory-store-harness.ts';

describe('DirectoryBackupStore', () => {
  backupStoreContract(directoryStoreUnderTest);

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
