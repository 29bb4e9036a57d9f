import { describe, expect, it } from 'vitest';
import { newKeyPair } from '../../test/age-streams.ts';
import { BackupNotDecryptableError } from '../restore/backup-decryption.ts';
import { identityFromSecret } from './backup-identity.ts';

const ref = { name: 'foodb-age-identity', key: 'identity' };
const secretWith = (data: Record<string, string>) => ({ data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) });

async function refusal(secret: Parameters<typeof identityFromSecret>[2]): Promise<BackupNotDecryptableError> {
  const error = await identityFromSecret(ref, 'shop', secret).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BackupNotDecryptableError);
  expect(error).toMatchObject({ reason: 'IdentityUnavailable' });
  return error as BackupNotDecryptableError;
}

describe('identityFromSecret', () => {
  it('reads an age-keygen file of one or more keys, comments and all, and shows only their recipients', async () => {
    const [a, b] = await Promise.all([newKeyPair(), newKeyPair()]);
    const identity = await identityFromSecret(ref, 'shop', secretWith({ identity: `# created: 2026-11-29\n# public key: ${a.recipient}\n${a.identity}\n\n${b.identity}\n` }));
    expect(identity.recipients).toEqual([a.recipient, b.recipient]);
    expect(JSON.stringify(identity)).not.toContain(a.identity);
  });

  it('says what to fix when the Secret or its key is missing, or holds no identity, and never what it holds', async () => {
    expect((await refusal(undefined)).message).toBe(
      'the identity to decrypt backups cannot be read: Secret foodb-age-identity (spec.backup.encryption.identitySecretRef) was not found in namespace shop: ' +
        'create it with kubectl -n shop create secret generic foodb-age-identity --from-file=identity=key.txt (the file age-keygen -o wrote)',
    );
    expect((await refusal(secretWith({ key: 'x' }))).message).toContain('Secret foodb-age-identity (spec.backup.encryption.identitySecretRef) has no key identity: put the identity there');
    const pair = await newKeyPair();
    // The public key where the private one belongs, and a key cut short: refused, neither quoted.
    const recipientGiven = await refusal(secretWith({ identity: pair.recipient }));
    expect(recipientGiven.message).toMatch(/^the identity to decrypt backups cannot be read: key identity of Secret foodb-age-identity \(spec.backup.encryption.identitySecretRef\) is no age identity: line 1 of the identity is a recipient/);
    const cut = await refusal(secretWith({ identity: pair.identity.slice(0, -3) }));
    expect(cut.message).not.toContain(pair.identity.slice(0, -3));
  });
});
