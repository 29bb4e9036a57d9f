import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createServingCertificates } from './certificates.ts';

describe('createServingCertificates', () => {
  it('signs a serving certificate for localhost, loopback and extra names with a fresh CA', async () => {
    const { caCertPem, certPem, keyPem } = await createServingCertificates(['prism.example.test', '10.1.2.3']);
    const ca = new X509Certificate(caCertPem);
    const cert = new X509Certificate(certPem);
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkHost('prism.example.test')).toBe('prism.example.test');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('10.1.2.3')).toBe('10.1.2.3');
    expect(cert.checkHost('other.example.test')).toBeUndefined();
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    expect(keyPem).toMatch(/PRIVATE KEY/);
  });
});
