import { conditionsSchema } from '@k8s-operators/controller-core/crd';
import { Type } from 'typebox';

const timestamp = (description: string) => Type.String({ description, format: 'date-time' });

const LastBackup = Type.Object(
  {
    name: Type.String({ description: 'Name of the PostgreSQLBackup.' }),
    phase: Type.Union([Type.Literal('Completed'), Type.Literal('Failed')], { description: 'How it ended.' }),
    completionTime: Type.Optional(timestamp('When it completed or failed.')),
    sizeBytes: Type.Optional(
      Type.Integer({ description: 'Size of the dump in bytes (completed backups).', format: 'int64', minimum: 0 }),
    ),
  },
  { description: 'The most recent backup that finished, successfully or not.' },
);

export const PostgreSQLStatusSchema = Type.Object(
  {
    conditions: Type.Optional(conditionsSchema()),
    observedGeneration: Type.Optional(
      Type.Integer({ description: 'The metadata.generation this status was computed from.', format: 'int64', minimum: 0 }),
    ),
    lastBackup: Type.Optional(LastBackup),
    lastSuccessfulBackupTime: Type.Optional(
      timestamp('When the newest verified backup completed; the data a restore would bring back is from then.'),
    ),
    lastScheduledBackupTime: Type.Optional(
      timestamp('The schedule slot of the last scheduled backup started; slots missed before it are not made up.'),
    ),
    lastRestoreCheckSuccess: Type.Optional(
      timestamp('When the last restore drill that passed ran (spec.backup.verify); the BackupRestorable condition names its backup.'),
    ),
    nextScheduledBackupTime: Type.Optional(
      timestamp('When the next scheduled backup is due (absent while backup.suspend is true).'),
    ),
  },
  { description: 'PostgreSQLStatus: whether the database serves, and how recent its last good backup is.' },
);
