import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const openssl = (args: string[]): Promise<unknown> => run('openssl', args);

/** Files of one cluster's certificate authority; every path is absolute. */
export interface ClusterPki {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  serviceAccountKey: string;
  serviceAccountPublicKey: string;
  caPem: string;
}

export interface ClientCertificate {
  cert: string;
  key: string;
}

/**
 * Creates a fresh CA, an API server serving certificate for the loopback address and in-cluster names, and
 * the service-account signing key pair. TLS is verified everywhere in testkit, as it is in production.
 */
export async function createClusterPki(dir: string): Promise<ClusterPki> {
  const caKey = join(dir, 'ca.key');
  const caCert = join(dir, 'ca.crt');
  await openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', caKey, '-out', caCert, '-days', '30',
    '-subj', '/CN=testkit-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);

  const serverKey = join(dir, 'apiserver.key');
  const serverCert = join(dir, 'apiserver.crt');
  const sans = ['DNS:localhost', 'DNS:kubernetes', 'DNS:kubernetes.default', 'DNS:kubernetes.default.svc',
    'DNS:kubernetes.default.svc.cluster.local', 'IP:127.0.0.1', 'IP:10.0.0.1'];
  await signCertificate(dir, { caCert, caKey, key: serverKey, cert: serverCert, subject: '/CN=kube-apiserver',
    extensions: [`subjectAltName=${sans.join(',')}`, 'extendedKeyUsage=serverAuth', 'keyUsage=critical,digitalSignature,keyEncipherment'] });

  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccountKey = join(dir, 'sa.key');
  const serviceAccountPublicKey = join(dir, 'sa.pub');
  await writeFile(serviceAccountKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(serviceAccountPublicKey, publicKey.export({ type: 'spki', format: 'pem' }));

  return { caCert, caKey, serverCert, serverKey, serviceAccountKey, serviceAccountPublicKey, caPem: await readFile(caCert, 'utf8') };
}

/** A TLS serving certificate for loopback addresses, signed by the cluster CA (the local node's log server). */
export async function createServingCertificate(dir: string, pki: ClusterPki, name: string, ipAddresses: readonly string[] = ['127.0.0.1']): Promise<ClientCertificate> {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  const names = ['DNS:localhost', ...[...new Set(ipAddresses)].map((ip) => `IP:${ip}`)].join(',');
  await signCertificate(dir, { caCert: pki.caCert, caKey: pki.caKey, key, cert, subject: `/CN=${name}`,
    extensions: [`subjectAltName=${names}`, 'extendedKeyUsage=serverAuth', 'keyUsage=critical,digitalSignature,keyEncipherment'] });
  return { cert, key };
}

/** A client certificate: the API server maps CN to the user name and each O to a group. */
export async function createClientCertificate(dir: string, pki: ClusterPki, name: string, user: string, groups: readonly string[]): Promise<ClientCertificate> {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  const subject = `/CN=${user}${groups.map((g) => `/O=${g}`).join('')}`;
  await signCertificate(dir, { caCert: pki.caCert, caKey: pki.caKey, key, cert, subject,
    extensions: ['extendedKeyUsage=clientAuth', 'keyUsage=critical,digitalSignature,keyEncipherment'] });
  return { cert, key };
}

interface SignRequest {
  caCert: string;
  caKey: string;
  key: string;
  cert: string;
  subject: string;
  extensions: string[];
}

async function signCertificate(dir: string, request: SignRequest): Promise<void> {
  const csr = `${request.cert}.csr`;
  const extFile = `${request.cert}.ext`;
  await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', request.key, '-out', csr, '-subj', request.subject]);
  await writeFile(extFile, `${request.extensions.join('\n')}\n`);
  await openssl(['x509', '-req', '-in', csr, '-CA', request.caCert, '-CAkey', request.caKey, '-CAcreateserial',
    '-CAserial', join(dir, 'ca.srl'), '-out', request.cert, '-days', '30', '-extfile', extFile]);
}
