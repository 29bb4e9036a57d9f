import { Type } from 'typebox';
import { DEFAULT_S3_REGION } from './defaults.ts';
import { S3_BUCKET_NAME } from './formats.ts';
import { objectName } from './object-name-schema.ts';
import { S3_ACCESS_KEY_ID_KEY, S3_SECRET_ACCESS_KEY_KEY } from './s3-credentials-secret.ts';

/**
 * `PostgreSQL.spec.backup.s3`: keep the backups in an S3-compatible bucket instead of the backup volume.
 * Credentials come from a Secret in the PostgreSQL's namespace, never from the spec.
 */

const KeySelector = (kind: 'ConfigMap' | 'Secret', field: string) =>
  Type.Object(
    {
      name: objectName(`s3.caBundle.${field}.name`, `Name of the ${kind} in the PostgreSQL's namespace.`),
      key: Type.String({ description: `The key in the ${kind} that holds the PEM certificates.`, minLength: 1, maxLength: 253 }),
    },
    { description: `The CA bundle from a ${kind}${kind === 'Secret' ? '' : ' (certificates are not secret)'}.` },
  );

const CaBundleSource = Type.Object(
  {
    configMapKeyRef: Type.Optional(KeySelector('ConfigMap', 'configMapKeyRef')),
    secretKeyRef: Type.Optional(KeySelector('Secret', 'secretKeyRef')),
  },
  {
    description:
      'PEM certificates of the CA that signed the store\'s TLS certificate, from a ConfigMap or a Secret (exactly one): ' +
      'for a store behind a private CA. They replace the public roots for this store. TLS is always verified.',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.configMapKeyRef) != has(self.secretKeyRef)',
        message: 'caBundle needs exactly one of configMapKeyRef and secretKeyRef',
      },
    ],
  },
);

export const S3StoreSpecSchema = Type.Object(
  {
    bucket: Type.String({
      description: 'The bucket, which must exist.',
      minLength: 3,
      maxLength: 63,
      'x-kubernetes-validations': [
        {
          rule: `self.matches('${S3_BUCKET_NAME}')`,
          message: "s3.bucket must be an S3 bucket name: lowercase letters, digits, '.' and '-', starting and ending with a letter or digit",
        },
      ],
    }),
    prefix: Type.Optional(
      Type.String({
        description:
          'Prepended to every object name, e.g. postgresql/ (a missing trailing / is added). Objects are ' +
          '<prefix><namespace>/<postgresql>/<backup>.dump and .manifest.json. Default: none.',
        maxLength: 512,
      }),
    ),
    endpoint: Type.Optional(
      Type.String({
        description:
          'URL of an S3-compatible store, e.g. https://minio.storage.svc:9000. Default: AWS S3 of the region.',
        maxLength: 2048,
        'x-kubernetes-validations': [
          {
            rule: "self.startsWith('https://') || self.startsWith('http://')",
            message: 's3.endpoint must be a URL starting with https:// (or http:// for a store without TLS)',
          },
        ],
      }),
    ),
    region: Type.Optional(Type.String({ description: 'The bucket\'s region.', minLength: 1, maxLength: 64, default: DEFAULT_S3_REGION })),
    forcePathStyle: Type.Optional(
      Type.Boolean({
        description:
          'Address the bucket as <endpoint>/<bucket> rather than <bucket>.<endpoint>: what self-hosted stores ' +
          '(SeaweedFS, MinIO, Ceph) usually need.',
        default: false,
      }),
    ),
    credentialsSecret: objectName(
      's3.credentialsSecret',
      `Name of a Secret in the PostgreSQL's namespace whose data.${S3_ACCESS_KEY_ID_KEY} and ` +
        `data.${S3_SECRET_ACCESS_KEY_KEY} hold the store's credentials.`,
    ),
    caBundle: Type.Optional(CaBundleSource),
  },
  {
    description:
      'Keep the backups in an S3-compatible bucket instead of the backup volume (the default, served by the operator\'s backup store service). Uploads are ' +
      'multipart and streamed, each part with its MD5; a backup exists once its manifest object is written, after the store\'s ETag ' +
      'confirmed the dump\'s bytes (a store whose ETags are not MD5s, as with SSE-KMS, has it read back instead).',
  },
);
