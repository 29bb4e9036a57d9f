import { Type, type TLiteral } from 'typebox';
import { RESTORE_CHECK_REASONS, type RestoreCheckFailureReason } from './restore-check.ts';

/** `PostgreSQLBackup.status.restoreCheck`: the last restore drill of this backup. */
export const RestoreCheckStatusSchema = Type.Object(
  {
    time: Type.String({ description: 'When the drill started.', format: 'date-time' }),
    durationSeconds: Type.Number({ description: 'How long the restore and the check took, in seconds.', minimum: 0 }),
    result: Type.Union(
      [Type.Literal('Passed'), Type.Literal('Failed')],
      { description: 'Passed: restored into a scratch pod and every check answered as expected. Failed: see reason and error.' },
    ),
    reason: Type.Optional(
      Type.Union(RESTORE_CHECK_REASONS.map((r) => Type.Literal(r)) as [TLiteral<RestoreCheckFailureReason>], {
        description:
          'Why a Failed drill failed: RestoreFailed (the server refused the dump), CheckMismatch (the check query ' +
          'answered otherwise), CheckFailed (the check query or a row count failed), BackupCorrupted, PgToolMissing, ' +
          'DumpNewerThanServer, or for an encrypted backup NoMatchingIdentity (the identity holds no key of its ' +
          'recipients), DamagedAgeFile (the ciphertext does not authenticate), NotAnAgeFile or IdentityUnavailable (the ' +
          'identity Secret is missing or holds no identity).',
      }),
    ),
    trigger: Type.Union([Type.Literal('Scheduled'), Type.Literal('OnDemand')], {
      description: 'Scheduled (spec.backup.verify.schedule) or OnDemand (the exp.wheel.jp/restore-check annotation).',
    }),
    request: Type.Optional(
      Type.String({ description: 'The exp.wheel.jp/restore-check annotation value an on-demand drill answered.', maxLength: 256 }),
    ),
    output: Type.Optional(Type.String({ description: "The check's output: the row count of each table, the query's answer (shortened)." })),
    error: Type.Optional(Type.String({ description: 'Why the drill failed.' })),
  },
  {
    description:
      'The last restore drill of this backup (spec.backup.verify of its PostgreSQL): restored into a scratch pod, never ' +
      'into the live database, and checked.',
  },
);
