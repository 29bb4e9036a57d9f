import { describe, expect, it } from 'vitest';
import { parseBackupJobInput, parseBackupJobResult, serializeBackupJobResult } from './backup-job-contract.ts';

const input = {
  key: { namespace: 'shop', postgresql: 'foodb', backup: 'foodb-1' },
  trigger: 'Scheduled',
  connection: { host: '10.0.0.7', port: 5432, database: 'foo', user: 'foo' },
  store: { kind: 's3', bucket: 'pg', prefix: 'db/', region: 'us-east-1', forcePathStyle: false, caBundle: false },
};
const toVolume = { ...input, store: { kind: 'volume', url: 'https://10.0.0.9:8443', serverName: 'backup-store.ops.svc', ca: '-----BEGIN CERTIFICATE-----' } };

describe('parseBackupJobInput', () => {
  it('reads what the operator wrote', () => {
    expect(parseBackupJobInput(JSON.stringify(input))).toEqual(input);
    expect(parseBackupJobInput(JSON.stringify(toVolume))).toEqual(toVolume);
    const encrypted = { ...input, encryption: { recipients: [`age1${'q'.repeat(58)}`] } };
    expect(parseBackupJobInput(JSON.stringify(encrypted))).toEqual(encrypted);
  });

  it('says what is wrong with input it cannot use', () => {
    expect(() => parseBackupJobInput(undefined)).toThrow('BACKUP_JOB is not set: this entry point runs only in a backup Job the operator creates');
    expect(() => parseBackupJobInput('{')).toThrow('BACKUP_JOB is not JSON');
    expect(() => parseBackupJobInput(JSON.stringify({ ...input, trigger: 'Sometimes' }))).toThrow('BACKUP_JOB: trigger must be one of Scheduled, OnDemand, Final');
    expect(() => parseBackupJobInput(JSON.stringify({ ...input, connection: { ...input.connection, port: 0 } }))).toThrow('BACKUP_JOB: port must be a port number');
    expect(() => parseBackupJobInput(JSON.stringify({ ...input, key: { ...input.key, backup: '../etc' } }))).toThrow('is not a Kubernetes object name');
    expect(() => parseBackupJobInput(JSON.stringify({ ...input, store: { kind: 'tape' } }))).toThrow('BACKUP_JOB: store.kind must be s3 or volume');
    expect(() => parseBackupJobInput(JSON.stringify({ ...toVolume, store: { ...toVolume.store, ca: '' } }))).toThrow('BACKUP_JOB: ca must be a PEM certificate');
    expect(() => parseBackupJobInput(JSON.stringify({ ...input, encryption: { recipients: [] } }))).toThrow('BACKUP_JOB: recipients must be a list of age recipients');
  });
});

describe('the termination message', () => {
  it('round-trips an outcome', () => {
    const completed = { result: 'Completed', sha256: 'ab'.repeat(32), size: 1234 } as const;
    expect(parseBackupJobResult(serializeBackupJobResult(completed))).toEqual(completed);
    const failed = { result: 'Failed', stage: 'Store', error: 'storing the dump failed: AccessDenied' } as const;
    expect(parseBackupJobResult(serializeBackupJobResult(failed))).toEqual(failed);
  });

  it('fits what the kubelet keeps, keeping both ends of a long error', () => {
    const error = `first words ${'x'.repeat(10_000)} last words`;
    const message = serializeBackupJobResult({ result: 'Failed', error });
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(4096);
    const parsed = parseBackupJobResult(message);
    expect(parsed).toMatchObject({ result: 'Failed' });
    expect(parsed?.result === 'Failed' && parsed.error.startsWith('first words') && parsed.error.endsWith('last words')).toBe(true);
  });

  it('is no outcome when the process died before writing one (the kubelet put its log there)', () => {
    expect(parseBackupJobResult(undefined)).toBeUndefined();
    expect(parseBackupJobResult('FATAL ERROR: Reached heap limit Allocation failed')).toBeUndefined();
    expect(parseBackupJobResult('{"result":"Completed"}')).toBeUndefined();
  });
});
