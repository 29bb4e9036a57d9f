import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { PemSource } from './cluster-entry.ts';

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * The bytes of a certificate or key given as a file or as base64 `-data`. `what` names it for messages
 * (`client-key of user "alice" in /home/me/.kube/config`); the data itself is never quoted.
 */
export async function readPem(source: PemSource, what: string): Promise<Buffer> {
  if ('file' in source) {
    try {
      return await readFile(source.file);
    } catch (error) {
      throw new Error(`cannot read ${what} file ${source.file}: ${(error as Error).message}`, { cause: error });
    }
  }
  if (!BASE64.test(source.base64)) throw new Error(`${what} is not base64 (kubeconfig -data fields hold base64-encoded PEM)`);
  return Buffer.from(source.base64, 'base64');
}

/** A CA bundle must hold at least one PEM certificate; otherwise TLS fails later with a vaguer message. */
export function checkCertificateAuthority(ca: Buffer, what: string): void {
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${what} holds no PEM certificate`);
}

/** A client certificate and key that TLS cannot use fail here, at start, naming the entry. */
export function checkClientCertificate(cert: Buffer, key: Buffer, what: string): void {
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    const mismatch = (error as NodeJS.ErrnoException).code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH';
    throw new Error(
      mismatch ? `${what}: the client certificate and key do not belong together` : `${what}: the client certificate or key is not usable PEM (${(error as Error).message})`,
      { cause: error },
    );
  }
}
