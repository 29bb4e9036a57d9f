import { inspect } from 'node:util';
import { describe, expect, test } from 'vitest';
import { newKeyPair as keyPair } from '../../test/age-streams.ts';
import { AGE_RECIPIENT_PATTERN, AgeIdentity, InvalidAgeIdentityError, InvalidAgeRecipientError, parseAgeRecipients } from './age-keys.ts';

/** `value` with the character at `index` replaced by another of bech32's. */
function mistyped(value: string, index: number): string {
  const replacement = value[index] === 'q' || value[index] === 'Q' ? 'p' : 'q';
  // Keys are bech32, all in one case: a recipient in lower case, an identity in upper case. Keep the key's case.
  const character = value === value.toUpperCase() ? replacement.toUpperCase() : replacement;
  return value.slice(0, index) + character + value.slice(index + 1);
}

describe('parseAgeRecipients', () => {
  test('takes X25519 recipients as age-keygen prints them, in order, and the pattern for an API schema matches them', async () => {
    const a = await keyPair();
    const b = await keyPair();
    expect(parseAgeRecipients([a.recipient, b.recipient])).toEqual([a.recipient, b.recipient]);
    expect(new RegExp(AGE_RECIPIENT_PATTERN).test(a.recipient)).toBe(true);
    expect(a.recipient).toHaveLength(62);
  });

  test('takes an X25519 recipient whose key happens to begin with "tag", as one in 32,768 does; only age1tag1 and age1tagpq1 are tag recipients', () => {
    // The recipient of a key made by age-keygen (age-encryption's generateX25519Identity), found by making keys until one began so.
    const recipient = 'age1tag36fax4tm03uu8hzadddhmhxl7prh9z572tu9eg20haye6g4ysslqgna';
    expect(parseAgeRecipients([recipient])).toEqual([recipient]);
  });

  test.each([
    ['nothing', [], /^no recipients: a backup is encrypted to at least one, age1 and 58 characters of bech32, 62 in all/],
    ['an empty one', [''], /^the recipient is empty; a recipient is age1 and 58 characters/],
    ['another kind of key', ['ssh-ed25519 AAAAC3Nza'], /^the recipient "ssh-ed25519 AAAAC3Nza" is an SSH key, which backups do not use/],
    ['a post-quantum recipient', ['age1pq1xyz'], /^the recipient "age1pq1xyz" is a post-quantum or tag recipient, which backups do not use/],
    ['a tag recipient', ['age1tag1xyz'], /^the recipient "age1tag1xyz" is a post-quantum or tag recipient, which backups do not use/],
    ['a wrong prefix', ['AGE1QQQ'], /^the recipient "AGE1QQQ" does not start with "age1"/],
  ])('refuses %s, saying what a recipient looks like', (_what, values, message) => {
    expect(() => parseAgeRecipients(values)).toThrow(InvalidAgeRecipientError);
    expect(() => parseAgeRecipients(values)).toThrow(message);
  });

  test('says which recipient of several is wrong, and where: a character outside bech32, a length, a checksum', async () => {
    const { recipient } = await keyPair();
    const withB = `${recipient.slice(0, 10)}b${recipient.slice(11)}`;
    expect(() => parseAgeRecipients([recipient, withB])).toThrow(
      `recipient 2 of 2 ${JSON.stringify(withB)} has a character outside bech32 at position 11; a recipient is age1`,
    );
    expect(() => parseAgeRecipients([`${recipient} `])).toThrow('has white space at position 63');
    expect(() => parseAgeRecipients([recipient.slice(0, 61)])).toThrow(
      `the recipient ${JSON.stringify(recipient.slice(0, 61))} is 61 characters long, not 62 (cut short or run into something else?)`,
    );
    expect(() => parseAgeRecipients([mistyped(recipient, 30)])).toThrow(
      'is not a valid recipient: its checksum does not match its key (a character mistyped or changed in copying)',
    );
  });

  test('refuses a recipient listed twice', async () => {
    const { recipient } = await keyPair();
    expect(() => parseAgeRecipients([recipient, recipient])).toThrow(`recipient 2 of 2, ${recipient}, is listed twice`);
  });

  test('refuses a private key given as a recipient without repeating any of it', async () => {
    const { identity } = await keyPair();
    expect(() => parseAgeRecipients([identity])).toThrow(
      new InvalidAgeRecipientError(
        'the recipient is a private key (an identity), which must never be in the PostgreSQL spec; give its public key instead, which `age-keygen -y key.txt` prints',
      ),
    );
  });
});

describe('AgeIdentity', () => {
  test('reads a key file as age-keygen writes it, and answers for the public key printed in its comment', async () => {
    const { identity, recipient } = await keyPair();
    const file = `# created: 2026-11-28T22:00:00Z\n# public key: ${recipient}\n${identity}\n`;
    expect((await AgeIdentity.parse(file)).recipients).toEqual([recipient]);
  });

  test('holds several keys, one per line, to open backups from before and after a key rotation', async () => {
    const old = await keyPair();
    const current = await keyPair();
    const identity = await AgeIdentity.parse(`${old.identity}\r\n\n${current.identity}`);
    expect(identity.recipients).toEqual([old.recipient, current.recipient]);
  });

  test('shows only its public keys when printed, logged or serialized', async () => {
    const { identity, recipient } = await keyPair();
    const parsed = await AgeIdentity.parse(identity);
    for (const shown of [String(parsed), JSON.stringify(parsed), JSON.stringify({ parsed }), inspect(parsed), inspect({ parsed }, { depth: 5 })]) {
      expect(shown).toContain(recipient);
      expect(shown).not.toContain(identity.slice(16, 40));
    }
  });

  test.each([
    ['nothing but comments', '# public key: age1xyz\n\n', /^the identity holds no key \(3 line\(s\), all blank or comments\); it must hold AGE-SECRET-KEY-1 and 58 characters/],
    ['a public key', 'age1qqqq', /^line 1 of the identity is a recipient \(a public key\), not an identity: decrypting needs the private key/],
    ['a post-quantum key', '\nAGE-SECRET-KEY-PQ-1QQQQ', /^line 2 of the identity is a post-quantum or plugin identity, which backups do not use/],
    ['an SSH key', '-----BEGIN OPENSSH PRIVATE KEY-----', /^line 1 of the identity is a PEM or SSH key, which backups do not use/],
    ['something else', 'hunter2', /^line 1 of the identity does not start with "AGE-SECRET-KEY-1" \(its content is not shown: it may be secret\)/],
  ])('refuses %s, saying what an identity looks like', async (_what, text, message) => {
    const error = await AgeIdentity.parse(text).then(() => undefined, (e: unknown) => e as Error);
    expect(error).toBeInstanceOf(InvalidAgeIdentityError);
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain('hunter2');
  });

  test('says where a key is wrong, never what it holds: a character, a length, a checksum', async () => {
    const { identity } = await keyPair();
    const cases: [string, string][] = [
      [`${identity.slice(0, 20)}b${identity.slice(21)}`, 'line 1 of the identity has a character outside bech32 at position 21; an identity is AGE-SECRET-KEY-1'],
      [identity.slice(0, 70), 'line 1 of the identity is 70 characters long, not 74 (cut short or run into something else?)'],
      [mistyped(identity, 40), 'line 1 of the identity is not a valid identity: its checksum does not match its key'],
    ];
    for (const [text, message] of cases) {
      const error = await AgeIdentity.parse(text).then(() => undefined, (e: unknown) => e as Error);
      expect(error?.message).toContain(message);
      expect(error?.message).not.toContain(identity.slice(16, 30));
    }
  });
});
