/**
 * Names and limits of backup encryption (`spec.backup.encryption`), apart from the schema so the runtime loads no
 * TypeBox.
 */

/** The key of the identity in the Secret `encryption.identitySecretRef` names, unless it says another. */
export const DEFAULT_AGE_IDENTITY_KEY = 'identity';

/** Enough for a rotation with a spare key or two; each recipient adds a stanza to every backup's header. */
export const MAX_AGE_RECIPIENTS = 8;
