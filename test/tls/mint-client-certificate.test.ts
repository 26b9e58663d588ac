import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_ALLOWANCE_MS, MINTED_VALIDITY_MS, mintClientCertificate, MintError } from '../../src/tls/mint-client-certificate.ts';
import { issue, makeCa } from '#lab/certs/pki.ts';

const NOW = Date.parse('2026-12-02T12:00:00Z');

describe('mintClientCertificate', () => {
  it('mints a ClientAuth-only, digitalSignature-only certificate signed by an ECDSA CA, back-dated 5 minutes', async () => {
    const ca = await makeCa('etcd-ca');
    const minted = await mintClientCertificate({ caCert: Buffer.from(ca.cert), caKey: Buffer.from(ca.key), commonName: 'etcd-probe', now: NOW });
    const cert = new X509Certificate(minted.cert);
    expect(cert.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    expect(cert.checkIssued(new X509Certificate(ca.cert))).toBe(true);
    expect(cert.subject).toBe('CN=etcd-probe');
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    // An EC key signs; keyEncipherment (RSA key transport) does not belong on it.
    const usages = new x509.X509Certificate(minted.cert.toString()).getExtension(x509.KeyUsagesExtension);
    expect(usages?.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(usages?.critical).toBe(true);
    expect(Date.parse(cert.validFrom)).toBe(Math.floor((NOW - CLOCK_SKEW_ALLOWANCE_MS) / 1000) * 1000);
    expect(Date.parse(cert.validTo)).toBe(NOW + MINTED_VALIDITY_MS);
    expect(minted.notAfter).toBe(NOW + MINTED_VALIDITY_MS);
    expect(minted.renewAt).toBeGreaterThan(NOW);
    expect(minted.renewAt).toBeLessThan(minted.notAfter);
    expect(cert.checkPrivateKey(await import('node:crypto').then((c) => c.createPrivateKey(minted.key)))).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });

  it('signs with an RSA CA key in PKCS#1 form, as kubeadm writes it', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    expect(pkcs1).toContain('BEGIN RSA PRIVATE KEY');
    const caCert = await selfSignedRsaCa(privateKey);
    const minted = await mintClientCertificate({ caCert, caKey: Buffer.from(pkcs1), commonName: 'etcd-probe', now: NOW });
    expect(new X509Certificate(minted.cert).verify(new X509Certificate(caCert).publicKey)).toBe(true);
  });

  it('refuses a key that does not belong to the CA, a leaf as CA, and garbage', async () => {
    const ca = await makeCa('etcd-ca');
    const other = await makeCa('other');
    const leaf = await issue(ca, { commonName: 'leaf', client: true });
    await expect(mintClientCertificate({ caCert: Buffer.from(ca.cert), caKey: Buffer.from(other.key), commonName: 'x', now: NOW })).rejects.toThrow(
      new MintError('the CA key does not belong to the CA certificate'),
    );
    await expect(mintClientCertificate({ caCert: Buffer.from(leaf.cert), caKey: Buffer.from(leaf.key), commonName: 'x', now: NOW })).rejects.toThrow(/not a CA/);
    await expect(mintClientCertificate({ caCert: Buffer.from('nope'), caKey: Buffer.from(ca.key), commonName: 'x', now: NOW })).rejects.toThrow(/not a PEM certificate/);
    await expect(mintClientCertificate({ caCert: Buffer.from(ca.cert), caKey: Buffer.from('nope'), commonName: 'x', now: NOW })).rejects.toThrow(/not a PEM private key/);
  });
});

async function selfSignedRsaCa(privateKey: import('node:crypto').KeyObject): Promise<Buffer> {
  const { webcrypto } = await import('node:crypto');
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const signingKey = await webcrypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), algorithm, true, ['sign']);
  const { createPublicKey } = await import('node:crypto');
  const publicKey = await webcrypto.subtle.importKey('spki', createPublicKey(privateKey).export({ type: 'spki', format: 'der' }), algorithm, true, ['verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=kubeadm-style etcd-ca',
    keys: { privateKey: signingKey, publicKey } as import("node:crypto").webcrypto.CryptoKeyPair,
    signingAlgorithm: algorithm,
    notBefore: new Date(NOW - 86_400_000),
    notAfter: new Date(NOW + 86_400_000 * 365),
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return Buffer.from(cert.toString('pem'));
}
