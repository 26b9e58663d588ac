import { createPrivateKey, webcrypto, X509Certificate, type KeyObject } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** NotBefore is back-dated by this much, as Cluster API's KCP does, so that a skewed etcd clock accepts it. */
export const CLOCK_SKEW_ALLOWANCE_MS = 5 * 60_000;
/** How long a minted certificate is valid. */
export const MINTED_VALIDITY_MS = 24 * 3_600_000;

/** A client certificate made in memory; it is never written to disk. */
export interface MintedCertificate {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** Epoch ms. */
  readonly notAfter: number;
  /** Epoch ms when it should be replaced: two thirds into its validity. */
  readonly renewAt: number;
}

/** What to mint from: the CA's certificate and key (PEM, any of PKCS#1, SEC1 or PKCS#8) and the time. */
export interface MintOptions {
  readonly caCert: Buffer;
  readonly caKey: Buffer;
  readonly commonName: string;
  /** Epoch ms. */
  readonly now: number;
}

/** Thrown when the CA material cannot be used; the message names what is wrong. */
export class MintError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MintError';
  }
}

/** A WebCrypto algorithm able to sign with the CA's key. */
type SigningAlgorithm = { readonly name: 'RSASSA-PKCS1-v1_5'; readonly hash: string } | { readonly name: 'ECDSA'; readonly namedCurve: string; readonly hash: string };

function signingAlgorithmOf(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const namedCurve = curve === 'prime256v1' ? 'P-256' : curve === 'secp384r1' ? 'P-384' : curve === 'secp521r1' ? 'P-521' : null;
    if (!namedCurve) throw new MintError(`the CA key's curve ${curve ?? 'unknown'} is not supported`);
    return { name: 'ECDSA', namedCurve, hash: namedCurve === 'P-256' ? 'SHA-256' : 'SHA-384' };
  }
  throw new MintError(`the CA key is of type ${key.asymmetricKeyType ?? 'unknown'}; RSA or ECDSA is needed`);
}

function pem(label: string, der: ArrayBuffer): Buffer {
  const body = Buffer.from(der).toString('base64').match(/.{1,64}/g)?.join('\n') ?? '';
  return Buffer.from(`-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`);
}

/**
 * Mints a client certificate signed by the etcd CA, as Cluster API's KCP does for its etcd client:
 * ClientAuth only, digitalSignature only, NotBefore back-dated against clock skew, a fresh ECDSA P-256
 * key. The caller owns `caKey` and zeroes it after.
 */
export async function mintClientCertificate(options: MintOptions): Promise<MintedCertificate> {
  let caKey: KeyObject;
  let caCertificate: X509Certificate;
  try {
    caCertificate = new X509Certificate(options.caCert);
  } catch {
    // No parser message: it could quote the Secret's bytes.
    throw new MintError('the CA certificate is not a PEM certificate');
  }
  try {
    caKey = createPrivateKey(options.caKey);
  } catch {
    throw new MintError('the CA key is not a PEM private key');
  }
  if (!caCertificate.checkPrivateKey(caKey)) throw new MintError('the CA key does not belong to the CA certificate');
  if (!caCertificate.ca) throw new MintError('the CA certificate is not a CA (basicConstraints CA:FALSE)');

  const algorithm = signingAlgorithmOf(caKey);
  const der = caKey.export({ type: 'pkcs8', format: 'der' });
  let signingKey: webcrypto.CryptoKey;
  try {
    signingKey = await webcrypto.subtle.importKey('pkcs8', der, algorithm, false, ['sign']);
  } finally {
    // Our copy of the CA key's bytes; the KeyObject and CryptoKey live in OpenSSL until collected.
    der.fill(0);
  }
  const leafAlgorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = (await webcrypto.subtle.generateKey(leafAlgorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const issuer = new x509.X509Certificate(options.caCert.toString('utf8'));
  const notAfter = options.now + MINTED_VALIDITY_MS;
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1'),
    subject: `CN=${options.commonName}`,
    issuer: issuer.subject,
    publicKey: keys.publicKey,
    signingKey,
    signingAlgorithm: algorithm,
    notBefore: new Date(options.now - CLOCK_SKEW_ALLOWANCE_MS),
    notAfter: new Date(notAfter),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      // An ECDSA key only signs: keyEncipherment belongs to RSA key transport (RFC 5480 section 3).
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(issuer),
    ],
  });
  return {
    cert: Buffer.from(certificate.toString('pem')),
    key: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    notAfter,
    renewAt: options.now + Math.round((MINTED_VALIDITY_MS * 2) / 3),
  };
}
