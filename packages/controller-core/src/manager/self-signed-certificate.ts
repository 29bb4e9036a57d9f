import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

/** A PEM certificate and its PEM (PKCS#8) private key, as `tls.createServer` takes them. */
export interface ServingCertificate {
  cert: string;
  key: string;
}

export interface SelfSignedOptions {
  /** The subject's common name (default `localhost`). */
  commonName?: string;
  /** DNS names and IP addresses for subjectAltName (default `localhost` and `127.0.0.1`). */
  hosts?: readonly string[];
  /** How long the certificate is valid from now (default 1 year, as client-go's self-signed serving certificates). */
  validForMs?: number;
  now?: Date;
}

const ONE_YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * A self-signed ECDSA P-256 serving certificate made in memory, as controller-runtime's metrics server makes one when
 * none is mounted. The key is made and the certificate signed by node:crypto (OpenSSL); this file only writes the DER
 * structure of RFC 5280 around them, so no X.509 library ships in the images. Clients cannot verify it (nothing signs
 * it but itself): they skip verification, as kubebuilder's ServiceMonitor does, or a real certificate is mounted.
 */
export function selfSignedCertificate(options: SelfSignedOptions = {}): ServingCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = options.now ?? new Date();
  const hosts = options.hosts ?? ['localhost', '127.0.0.1'];
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(options.commonName ?? 'localhost', 'utf8')))));
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40; // positive, and minimally encoded
  // IPv4-mapped IPv6 addresses (::ffff:10.0.0.1) are left out: clients connect to the IPv4 form.
  const altNames = hosts.filter((h) => !(isIP(h) === 6 && h.includes('.'))).map((h) => {
    const ip = isIP(h);
    if (ip === 4) return tlv(0x87, Buffer.from(h.split('.').map(Number)));
    if (ip === 6) return tlv(0x87, ipv6Bytes(h));
    return tlv(0x82, Buffer.from(h, 'ascii'));
  });
  const extensions = [
    extension('2.5.29.19', true, seq()), // basicConstraints: not a CA
    extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x07, 0x80]))), // keyUsage: digitalSignature
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
    extension('2.5.29.17', false, seq(...altNames)), // subjectAltName
  ];
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))), // v3
    tlv(0x02, serial),
    ecdsaWithSha256,
    name,
    seq(time(new Date(now.getTime() - 3600_000)), time(new Date(now.getTime() + (options.validForMs ?? ONE_YEAR_MS)))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const body = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return { cert: `-----BEGIN CERTIFICATE-----\n${body}-----END CERTIFICATE-----\n`, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

const seq = (...parts: Buffer[]): Buffer => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]): Buffer => tlv(0x31, Buffer.concat(parts));

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

/** UTCTime until 2049, GeneralizedTime after, as RFC 5280 §4.1.2.5 requires. */
function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-01-31T12:34:56.789Z
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const groups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return Buffer.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}
