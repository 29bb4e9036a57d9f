import { describe, expect, it } from 'vitest';
import { createLogger, DEFAULT_REDACT_PATHS, reconcileLogger, REDACTED, redactSecretData } from './log.ts';

/** A logger writing into an array, one raw line per entry. */
function capture(options: Parameters<typeof createLogger>[0] = {}) {
  const lines: string[] = [];
  const logger = createLogger({ ...options, destination: { write: (line: string) => void lines.push(line) } });
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines, entries };
}

const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  type: 'Opaque',
  metadata: { namespace: 'db', name: 'postgres-credentials' },
  data: { password: 'aHVudGVyMg==' },
  stringData: { 'backup-key': 'plain-text-key' },
};

describe('createLogger', () => {
  it('writes JSON lines with an ISO time and a level name', () => {
    const { logger, entries } = capture({ name: 'maintpage-operator' });
    logger.info({ replicas: 2 }, 'scaled');
    const [entry] = entries();
    expect(entry).toMatchObject({ level: 'info', name: 'maintpage-operator', replicas: 2, msg: 'scaled' });
    expect(entry?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('honours the level', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.info('hidden');
    logger.warn('shown');
    expect(lines).toHaveLength(1);
  });

  it("never writes a Secret's data, at any depth, and leaves the caller's object alone", () => {
    const { logger, lines, entries } = capture();
    const listItem = { metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: { 'tls.key': 'LS0tLS1CRUdJTi' } };
    const logged = { secret, applied: { objects: [{ desired: secret }] }, list: { kind: 'SecretList', items: [listItem] } };
    logger.info(logged, 'applied');

    const output = lines.join('');
    for (const value of ['aHVudGVyMg==', 'plain-text-key', 'LS0tLS1CRUdJTi']) expect(output).not.toContain(value);
    const [entry] = entries();
    expect(entry?.secret).toMatchObject({
      data: { password: REDACTED },
      stringData: { 'backup-key': REDACTED },
      metadata: { name: 'postgres-credentials' },
    });
    expect(secret.data.password).toBe('aHVudGVyMg==');
  });

  it('keeps the data of objects that are not Secrets', () => {
    const { logger, entries } = capture();
    logger.info({ configMap: { kind: 'ConfigMap', metadata: { name: 'nginx' }, data: { 'nginx.conf': 'listen 80;' } } });
    expect(entries()[0]?.configMap).toMatchObject({ data: { 'nginx.conf': 'listen 80;' } });
  });

  it('never writes Authorization headers, tokens or passwords', () => {
    const { logger, lines, entries } = capture();
    logger.info({ req: { method: 'GET', headers: { authorization: 'Bearer sa-token-123' } } }, 'request');
    logger.info({ headers: { Authorization: 'Basic YWRtaW46cHJpc20=' } }, 'prism');
    logger.info({ user: { name: 'admin', token: 'kubeconfig-token', password: 'p@ss' } }, 'kubeconfig');
    logger.info({ password: 'top-level' }, 'password');
    const failure = Object.assign(new Error('request failed'), {
      request: { headers: { authorization: 'Bearer in-an-error' } },
      body: { items: [secret] },
    });
    logger.error({ err: failure }, 'failed');
    logger.child({ token: 'bound-token' }).info('bound');

    const output = lines.join('');
    for (const value of ['sa-token-123', 'YWRtaW46cHJpc20=', 'kubeconfig-token', 'p@ss', 'top-level', 'in-an-error', 'aHVudGVyMg==', 'bound-token']) {
      expect(output).not.toContain(value);
    }
    expect(entries()[0]).toMatchObject({ req: { method: 'GET', headers: { authorization: REDACTED } } });
    expect(entries()[4]).toMatchObject({ err: { message: 'request failed', request: { headers: { authorization: REDACTED } } } });
  });

  it('adds redact paths on top of the defaults', () => {
    const { logger, lines } = capture({ redact: ['spec.credentials.secretKey'] });
    logger.info({ spec: { credentials: { secretKey: 'AKIA-secret' } } });
    expect(lines.join('')).not.toContain('AKIA-secret');
    expect(DEFAULT_REDACT_PATHS).toContain('*.*.authorization');
  });

  it('copes with cyclic objects', () => {
    const { logger, entries } = capture();
    const cyclic: Record<string, unknown> = { kind: 'Secret', type: 'Opaque', data: { a: 'c2VjcmV0' } };
    cyclic.self = cyclic;
    logger.info({ cyclic });
    expect(JSON.stringify(entries()[0])).not.toContain('c2VjcmV0');
  });
});

describe('redactSecretData', () => {
  it('returns the same object when there is nothing to redact', () => {
    const plain = { a: [{ b: 1 }], c: 'x' };
    expect(redactSecretData(plain)).toBe(plain);
  });
});

describe('reconcileLogger', () => {
  it('binds controller, object, reconcile ID and the reasons for the reconcile', () => {
    const { logger, entries } = capture();
    const reasons = [{ event: 'Updated', source: { kind: 'Service', namespace: 'shop', name: 'web' }, at: 1 }];
    reconcileLogger(logger, { controller: 'maintpage', namespace: 'shop', name: 'web', reconcileID: 'r-1', reasons }).info('reconciling');
    reconcileLogger(logger, { controller: 'nodes', name: 'node-1', reconcileID: 'r-2', reasons: [] }).info('reconciling');
    expect(entries()[0]).toMatchObject({ controller: 'maintpage', namespace: 'shop', name: 'web', reconcileID: 'r-1', reasons, msg: 'reconciling' });
    expect(entries()[1]).not.toHaveProperty('namespace');
  });
});
