/** The keys of the Secret that `spec.backup.s3.credentialsSecret` names. */
export const S3_ACCESS_KEY_ID_KEY = 'accessKeyId';
export const S3_SECRET_ACCESS_KEY_KEY = 'secretAccessKey';
