import { inspect } from 'node:util';
import { Encrypter, identityToRecipient, type Decrypter } from 'age-encryption';

/**
 * The keys of age encryption (https://age-encryption.org/v1) as a PostgreSQL's backups use them: recipients, the
 * public keys a backup is encrypted to (`age1...`, as `age-keygen` prints them; safe to show anywhere), and the
 * identity that decrypts it (`AGE-SECRET-KEY-1...`, as `age-keygen` writes it; secret). Only age's native X25519 keys:
 * those every age implementation reads, the reference `age` tool included, so a person can always decrypt a backup
 * with `age -d -i key.txt` and no operator.
 *
 * The checks here only make the messages precise (which character, which line, what a valid key looks like); whether
 * a key is valid is decided by age-encryption's own parser, which checks the bech32 checksum and the key's length.
 * Nothing here ever puts an identity, or any part of it, into a message.
 */

/** bech32's alphabet (BIP 173), in which the key and checksum of a recipient and of an identity are written. */
const BECH32_ALPHABET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
/** A key of 32 bytes in bech32: 52 characters of data and 6 of checksum. */
const KEY_CHARACTERS = 58;
const RECIPIENT_PREFIX = 'age1';
const IDENTITY_PREFIX = 'AGE-SECRET-KEY-1';

/** An X25519 recipient, as a regular expression: for an API schema's `pattern`. */
export const AGE_RECIPIENT_PATTERN = `^${RECIPIENT_PREFIX}[${BECH32_ALPHABET}]{${KEY_CHARACTERS}}$`;

const RECIPIENT_EXAMPLE = `${RECIPIENT_PREFIX} and ${KEY_CHARACTERS} characters of bech32, ${RECIPIENT_PREFIX.length + KEY_CHARACTERS} in all, as \`age-keygen\` prints it ("Public key: age1...") and \`age-keygen -y key.txt\` prints it again`;
const IDENTITY_EXAMPLE = `${IDENTITY_PREFIX} and ${KEY_CHARACTERS} characters of bech32 (upper case), ${IDENTITY_PREFIX.length + KEY_CHARACTERS} in all, the line \`age-keygen -o key.txt\` writes after its comments`;

/** A valid age X25519 recipient (`age1...`): made only by {@link parseAgeRecipients}. */
export type AgeRecipient = string & { readonly ageRecipient: unique symbol };

export class InvalidAgeRecipientError extends Error {
  override name = 'InvalidAgeRecipientError';
}

export class InvalidAgeIdentityError extends Error {
  override name = 'InvalidAgeIdentityError';
}

/**
 * Checks a list of recipients (a PostgreSQL spec's): at least one, each a valid X25519 recipient, none listed twice.
 * Several recipients are what key rotation needs: a backup encrypted to the old and the new key opens with either.
 */
export function parseAgeRecipients(values: readonly string[]): AgeRecipient[] {
  if (values.length === 0) {
    throw new InvalidAgeRecipientError(`no recipients: a backup is encrypted to at least one, ${RECIPIENT_EXAMPLE}`);
  }
  const seen = new Set<string>();
  return values.map((value, index) => {
    const which = values.length === 1 ? 'the recipient' : `recipient ${index + 1} of ${values.length}`;
    const problem = recipientProblem(value);
    if (problem !== undefined) throw new InvalidAgeRecipientError(`${which} ${problem}`);
    if (seen.has(value)) throw new InvalidAgeRecipientError(`${which}, ${value}, is listed twice`);
    seen.add(value);
    return value as AgeRecipient;
  });
}

/** What is wrong with `value` as an X25519 recipient, said after "the recipient", or undefined when it is one. */
function recipientProblem(value: string): string | undefined {
  // Never echoed: a private key pasted where the public one belongs must not end up in a condition or an Event.
  if (value.toUpperCase().startsWith('AGE-SECRET-KEY-')) {
    return 'is a private key (an identity), which must never be in the PostgreSQL spec; give its public key instead, which `age-keygen -y key.txt` prints';
  }
  const shown = JSON.stringify(value);
  if (value === '') return `is empty; a recipient is ${RECIPIENT_EXAMPLE}`;
  // Each kind's prefix ends in bech32's separator "1", which an X25519 key never holds: an X25519 recipient may well
  // begin "age1tag" (one in 32,768 do), and is one all the same.
  if (['age1pq1', 'age1tag1', 'age1tagpq1'].some((prefix) => value.startsWith(prefix))) {
    return `${shown} is a post-quantum or tag recipient, which backups do not use; give an X25519 recipient, ${RECIPIENT_EXAMPLE}`;
  }
  if (value.startsWith('ssh-')) return `${shown} is an SSH key, which backups do not use; give an age recipient, ${RECIPIENT_EXAMPLE}`;
  if (!value.startsWith(RECIPIENT_PREFIX)) return `${shown} does not start with "${RECIPIENT_PREFIX}"; a recipient is ${RECIPIENT_EXAMPLE}`;
  const problem = keyCharactersProblem(value, RECIPIENT_PREFIX, BECH32_ALPHABET);
  if (problem !== undefined) return `${shown} ${problem}; a recipient is ${RECIPIENT_EXAMPLE}`;
  try {
    new Encrypter().addRecipient(value);
  } catch {
    return `${shown} is not a valid recipient: its checksum does not match its key (a character mistyped or changed in copying); copy it again from \`age-keygen -y key.txt\``;
  }
  return undefined;
}

/**
 * What is wrong with the length or the characters after `prefix`, or undefined. Says where, never what: it serves
 * identities too.
 */
function keyCharactersProblem(value: string, prefix: string, alphabet: string): string | undefined {
  const key = value.slice(prefix.length);
  // The alphabet is ASCII letters and digits, so this pattern needs no escaping.
  const at = key.search(new RegExp(`[^${alphabet}]`, 'u'));
  if (at >= 0) {
    const code = key.codePointAt(at) ?? 0;
    const kind = /\s/u.test(String.fromCodePoint(code)) ? 'white space' : 'a character outside bech32';
    return `has ${kind} at position ${prefix.length + at + 1}`;
  }
  if (key.length !== KEY_CHARACTERS) {
    return `is ${value.length} characters long, not ${prefix.length + KEY_CHARACTERS} (cut short or run into something else?)`;
  }
  return undefined;
}

/**
 * The identity that decrypts backups: one or more age X25519 private keys. The keys never leave this object except
 * into age-encryption's decrypter ({@link AgeIdentity.addTo}); printed, logged or serialized it shows only the
 * public keys it answers for, its {@link AgeIdentity.recipients}.
 */
export class AgeIdentity {
  readonly #keys: readonly string[];
  /** The recipient (public key) of each key, in the order given: what backups must be encrypted to for it to open them. */
  readonly recipients: readonly AgeRecipient[];

  private constructor(keys: readonly string[], recipients: readonly AgeRecipient[]) {
    this.#keys = keys;
    this.recipients = recipients;
  }

  /**
   * Reads an identity file as `age -i` reads one and `age-keygen -o` writes one (a Secret's value, typically): one
   * key per line, `#` comments and blank lines ignored, at least one key. Several keys let one identity open backups
   * encrypted before and after a key rotation.
   */
  static async parse(text: string): Promise<AgeIdentity> {
    const lines = text.split(/\r?\n/);
    const keys: string[] = [];
    for (const [index, raw] of lines.entries()) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const problem = await identityProblem(line);
      if (problem !== undefined) throw new InvalidAgeIdentityError(`line ${index + 1} of the identity ${problem}`);
      keys.push(line);
    }
    if (keys.length === 0) {
      throw new InvalidAgeIdentityError(
        `the identity holds no key (${lines.length} line(s), all blank or comments); it must hold ${IDENTITY_EXAMPLE}`,
      );
    }
    const recipients = await Promise.all(keys.map(async (key) => (await identityToRecipient(key)) as AgeRecipient));
    return new AgeIdentity(keys, recipients);
  }

  /** Hands the keys to a decrypter of age-encryption: the one place they go. */
  addTo(decrypter: Decrypter): void {
    for (const key of this.#keys) decrypter.addIdentity(key);
  }

  toString(): string {
    return `AgeIdentity(${this.recipients.join(', ')})`;
  }

  toJSON(): { recipients: readonly AgeRecipient[] } {
    return { recipients: this.recipients };
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/** What is wrong with one line of an identity, said after "line N of the identity", or undefined. Never quotes it. */
async function identityProblem(line: string): Promise<string | undefined> {
  if (line.startsWith(RECIPIENT_PREFIX)) {
    return `is a recipient (a public key), not an identity: decrypting needs the private key it was made from, ${IDENTITY_EXAMPLE}`;
  }
  if (line.startsWith('AGE-SECRET-KEY-PQ-1') || line.startsWith('AGE-PLUGIN-')) {
    return `is a post-quantum or plugin identity, which backups do not use; give an X25519 identity, ${IDENTITY_EXAMPLE}`;
  }
  if (line.startsWith('-----BEGIN')) return `is a PEM or SSH key, which backups do not use; give an age identity, ${IDENTITY_EXAMPLE}`;
  if (!line.startsWith(IDENTITY_PREFIX)) return `does not start with "${IDENTITY_PREFIX}" (its content is not shown: it may be secret); an identity is ${IDENTITY_EXAMPLE}`;
  const problem = keyCharactersProblem(line, IDENTITY_PREFIX, BECH32_ALPHABET.toUpperCase());
  if (problem !== undefined) return `${problem}; an identity is ${IDENTITY_EXAMPLE}`;
  try {
    await identityToRecipient(line);
  } catch {
    return `is not a valid identity: its checksum does not match its key (a character mistyped or changed in copying); copy it again from the file \`age-keygen -o\` wrote`;
  }
  return undefined;
}
