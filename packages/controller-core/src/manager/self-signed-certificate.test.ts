import { X509Certificate, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:tls';
import { expect, test } from 'vitest';
import { selfSignedCertificate } from './self-signed-certificate.ts';

test('a self-signed ECDSA serving certificate that OpenSSL parses and verifies', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const { cert, key } = selfSignedCertificate({ commonName: 'demo-operator', hosts: ['localhost', '127.0.0.1', '10.244.0.7', 'fd00::7', 'demo-7d9f'], now });
  const x509 = new X509Certificate(cert);
  expect(x509.subject).toBe('CN=demo-operator');
  expect(x509.issuer).toBe('CN=demo-operator');
  expect(x509.verify(x509.publicKey)).toBe(true);
  expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
  expect(x509.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
  expect(x509.ca).toBe(false);
  expect(x509.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  expect(x509.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:10.244.0.7, IP Address:FD00:0:0:0:0:0:0:7, DNS:demo-7d9f');
  // An hour back for clocks that lag, a year ahead as client-go's self-signed certificates.
  expect(new Date(x509.validFromDate).toISOString()).toBe('2026-03-01T11:00:00.000Z');
  expect(new Date(x509.validToDate).toISOString()).toBe('2027-03-01T12:00:00.000Z');
  expect(x509.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
});

test('dates from 2050 on are GeneralizedTime', () => {
  const x509 = new X509Certificate(selfSignedCertificate({ now: new Date('2049-12-31T23:30:00Z') }).cert);
  expect(new Date(x509.validToDate).toISOString()).toBe('2050-12-31T23:30:00.000Z');
});

test('a TLS client completes a handshake with it and sees it', async () => {
  const { cert, key } = selfSignedCertificate();
  const server = createServer({ cert, key }, (socket) => { socket.end('hello'); });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, ca: cert, servername: 'localhost' });
    await once(socket, 'secureConnect');
    expect(socket.authorized).toBe(true);
    expect(socket.getPeerX509Certificate()?.raw.equals(new X509Certificate(cert).raw)).toBe(true);
    socket.destroy();
  } finally {
    server.close();
  }
});
