import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIPv4 } from 'node:net';

// X.509 certificates written directly in DER and signed by node:crypto, for a fleet of hundreds of
// workload clusters each with CAs of its own: @peculiar/x509 (lab/certs/pki.ts) takes ~10 ms per
// certificate, this ~0.2 ms. Only what the stand-in needs: ECDSA P-256 keys, ecdsa-with-SHA256, v3 with
// basicConstraints, keyUsage, extKeyUsage, subjectAltName (DNS, IPv4), subject and authority key ids.
// Real Cluster API makes RSA-2048 CAs; P-256 keeps 500 clusters' set-up under a second.

/** A CA made here: PEM text for Secrets and kubeconfigs, and what signing needs. */
export interface QuickCa {
  readonly cert: string;
  readonly key: string;
  readonly privateKey: KeyObject;
  /** The DER of its subject Name (the issuer of what it signs). */
  readonly subject: Buffer;
  readonly keyId: Buffer;
}

/** A leaf certificate and its key, as PEM. */
export interface QuickLeaf {
  readonly cert: string;
  readonly key: string;
}

/** What a leaf is for. */
export interface QuickLeafOptions {
  readonly commonName: string;
  readonly organization?: string;
  readonly server?: boolean;
  readonly client?: boolean;
  readonly dnsNames?: readonly string[];
  readonly ips?: readonly string[];
}

const DAY = 24 * 3600 * 1000;

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const seq = (...content: Buffer[]) => tlv(0x30, ...content);

function oid(text: string): Buffer {
  const arcs = text.split('.').map(Number);
  const bytes = [40 * (arcs[0] ?? 0) + (arcs[1] ?? 0)];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function bitString(bytes: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.from([unusedBits]), bytes);
}

/** keyUsage bits (RFC 5280 4.2.1.3) as a DER BIT STRING: bit 0 is the high bit of the first byte. */
function keyUsage(bits: readonly number[]): Buffer {
  let value = 0;
  for (const bit of bits) value |= 0x80 >> bit;
  let unused = 0;
  while (unused < 7 && ((value >> unused) & 1) === 0) unused++;
  return bitString(Buffer.from([value]), unused);
}

function name(commonName: string, organization?: string): Buffer {
  const attribute = (type: string, value: string) => tlv(0x31, seq(oid(type), tlv(0x0c, Buffer.from(value, 'utf8'))));
  return seq(...(organization ? [attribute('2.5.4.10', organization)] : []), attribute('2.5.4.3', commonName));
}

function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14);
  return tlv(0x17, Buffer.from(`${text}Z`, 'ascii'));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [Buffer.from([0x01, 0x01, 0xff])] : []), tlv(0x04, value));
}

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/** The subject key identifier of RFC 5280 method 1: SHA-1 of the public key's bits. */
function keyIdOf(spki: Buffer): Buffer {
  // The key's bits are the last BIT STRING of the SubjectPublicKeyInfo: for P-256, 65 bytes after 03 42 00.
  return createHash('sha1').update(spki.subarray(spki.length - 65)).digest();
}

function pem(label: string, der: Buffer): string {
  return `-----BEGIN ${label}-----\n${der.toString('base64').match(/.{1,64}/g)?.join('\n')}\n-----END ${label}-----\n`;
}

function certificate(subject: Buffer, issuer: Buffer, spki: Buffer, extensions: Buffer[], signer: KeyObject): string {
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  const now = Date.now();
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, serial),
    ECDSA_SHA256,
    issuer,
    seq(utcTime(new Date(now - DAY)), utcTime(new Date(now + 30 * DAY))),
    subject,
    spki,
    tlv(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, signer);
  return pem('CERTIFICATE', seq(tbs, ECDSA_SHA256, bitString(signature)));
}

function newKey(): { privateKey: KeyObject; spki: Buffer; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, spki: publicKey.export({ type: 'spki', format: 'der' }), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

/** A self-signed CA (ECDSA P-256, 30 days, keyCertSign and cRLSign, CA:TRUE critical). */
export function quickCa(commonName: string): QuickCa {
  const { privateKey, spki, keyPem } = newKey();
  const subject = name(commonName);
  const keyId = keyIdOf(spki);
  const cert = certificate(
    subject,
    subject,
    spki,
    [
      extension('2.5.29.15', true, keyUsage([0, 5, 6])),
      extension('2.5.29.19', true, seq(Buffer.from([0x01, 0x01, 0xff]))),
      extension('2.5.29.14', false, tlv(0x04, keyId)),
    ],
    privateKey,
  );
  return { cert, key: keyPem, privateKey, subject, keyId };
}

/** A leaf certificate signed by ca, with a key of its own. */
export function quickLeaf(ca: QuickCa, options: QuickLeafOptions): QuickLeaf {
  const { spki, keyPem } = newKey();
  const usages = [...(options.server ? [SERVER_AUTH] : []), ...(options.client ? [CLIENT_AUTH] : [])];
  const names = [
    ...(options.dnsNames ?? []).map((dns) => tlv(0x82, Buffer.from(dns, 'ascii'))),
    ...(options.ips ?? []).map((ip) => {
      if (!isIPv4(ip)) throw new Error(`quickLeaf: only IPv4 addresses are supported, not ${ip}`);
      return tlv(0x87, Buffer.from(ip.split('.').map(Number)));
    }),
  ];
  const extensions = [
    extension('2.5.29.15', true, keyUsage(options.server ? [0, 2] : [0])),
    ...(usages.length > 0 ? [extension('2.5.29.37', false, seq(...usages.map(oid)))] : []),
    extension('2.5.29.19', true, seq()),
    ...(names.length > 0 ? [extension('2.5.29.17', false, seq(...names))] : []),
    extension('2.5.29.35', false, seq(tlv(0x80, ca.keyId))),
  ];
  return { cert: certificate(name(options.commonName, options.organization), ca.subject, spki, extensions, ca.privateKey), key: keyPem };
}
