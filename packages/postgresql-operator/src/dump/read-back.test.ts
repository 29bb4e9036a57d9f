// The check before a backup is published, on a real directory store whose files are damaged directly.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DumpVerificationError, readBackDump } from './read-back.ts';
import type { StoredData } from '../stores/store.ts';
import { chunks, key } from '../../test/backup-store-contract.ts';
import { directoryStoreUnderTest } from '../../test/directory-store-harness.ts';

type Subject = Awaited<ReturnType<typeof directoryStoreUnderTest>>;
const digestOf = (text: string): { size: number; sha256: string } => ({ size: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') });

describe('readBackDump', () => {
  let subject: Subject;
  beforeEach(async () => {
    subject = await directoryStoreUnderTest();
  });
  afterEach(async () => {
    await subject.close();
  });

  it('passes a dump that reads back as the bytes written and decoded', async () => {
    const written = await subject.store.write(key('foodb-1'), chunks('a dump'));
    await expect(readBackDump({ store: subject.store, key: key('foodb-1'), written, decoded: digestOf('a dump') })).resolves.toBeUndefined();
  });

  it('reads the dump back when the store did not confirm it, and refuses one changed after it was written', async () => {
    const written = await subject.store.write(key('foodb-1'), chunks('a dump'));
    await subject.putRaw('foodb', 'foodb-1.dump', 'a dumq');
    const checked = readBackDump({ store: subject.store, key: key('foodb-1'), written, decoded: digestOf('a dump') });
    await expect(checked).rejects.toThrow(DumpVerificationError);
    await expect(checked).rejects.toThrow(`the stored dump reads back as 6 bytes with SHA-256 ${digestOf('a dumq').sha256}`);
  });

  it('takes the store at its word when it confirmed the bytes, but still refuses bytes other than those decoded', async () => {
    // Nothing stored under this key: a read-back would fail, so passing shows none was made.
    const confirmed: StoredData = { ...digestOf('a dump'), confirmedByStore: true };
    await expect(readBackDump({ store: subject.store, key: key('never-stored'), written: confirmed, decoded: digestOf('a dump') })).resolves.toBeUndefined();
    await expect(readBackDump({ store: subject.store, key: key('never-stored'), written: confirmed, decoded: digestOf('a dum') })).rejects.toThrow(
      `pg_restore decoded 5 bytes with SHA-256 ${digestOf('a dum').sha256}, but the store holds 6 bytes`,
    );
  });
});
