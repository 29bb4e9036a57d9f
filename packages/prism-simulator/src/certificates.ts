// A throw-away CA and a serving certificate signed by it, made with the openssl CLI (Node can create keys
// but not X.509 certificates). Real Prism Central ships a self-signed certificate; giving clients a CA file
// instead lets tests keep TLS verification on, which is what the operator must do in production.

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';

const execFileAsync = promisify(execFile);

export interface ServingCertificates {
  /** The CA certificate clients trust (PEM). */
  caCertPem: string;
  /** The server certificate (PEM), valid for localhost, 127.0.0.1, ::1 and the extra host names. */
  certPem: string;
  keyPem: string;
}

/** Host names and addresses every certificate covers. */
const DEFAULT_SUBJECT_ALT_NAMES = ['localhost', '127.0.0.1', '::1'];

export async function createServingCertificates(extraHostnames: readonly string[] = []): Promise<ServingCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'prism-simulator-tls-'));
  const path = (name: string): string => join(dir, name);
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    await openssl(['req', '-x509', ...ecKey, '-keyout', path('ca.key'), '-out', path('ca.crt'), '-days', '30', '-subj', '/CN=prism-simulator CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
    await openssl(['req', '-new', ...ecKey, '-keyout', path('server.key'), '-out', path('server.csr'), '-subj', '/CN=prism-simulator']);
    const names = [...new Set([...DEFAULT_SUBJECT_ALT_NAMES, ...extraHostnames])];
    const subjectAltName = names.map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
    await writeFile(path('server.ext'), [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${subjectAltName}`,
    ].join('\n'));
    await openssl(['x509', '-req', '-in', path('server.csr'), '-CA', path('ca.crt'), '-CAkey', path('ca.key'), '-set_serial', `0x${randomBytes(8).toString('hex')}`,
      '-days', '30', '-sha256', '-extfile', path('server.ext'), '-out', path('server.crt')]);
    const [caCertPem, certPem, keyPem] = await Promise.all([readFile(path('ca.crt'), 'utf8'), readFile(path('server.crt'), 'utf8'), readFile(path('server.key'), 'utf8')]);
    return { caCertPem, certPem, keyPem };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function openssl(args: string[]): Promise<void> {
  try {
    await execFileAsync('openssl', args);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error('the openssl command is needed to create the TLS certificate; install OpenSSL or start the simulator without TLS', { cause: error });
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0] ?? ''} failed: ${stderr.trim()}`, { cause: error });
  }
}
