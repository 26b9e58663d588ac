import { webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

// Lab: a throw-away PKI for the etcd test cluster, made fresh by each test run.

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type KeyPair = webcrypto.CryptoKeyPair;

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

/** A certificate and its private key, as PEM text. */
export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

/** A CA able to sign leaf certificates. */
export interface TestCa extends PemPair {
  readonly certificate: x509.X509Certificate;
  readonly keys: KeyPair;
}

async function pemKey(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').match(/.{1,64}/g)?.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

async function newKeys(): Promise<KeyPair> {
  return (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as KeyPair;
}

/** Makes a self-signed CA. */
export async function makeCa(name: string): Promise<TestCa> {
  const keys = await newKeys();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys,
    signingAlgorithm: EC,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 30 * DAY),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificate, keys, cert: certificate.toString('pem'), key: await pemKey(keys.privateKey) };
}

/** What a leaf certificate is for, and its validity window. */
export interface LeafOptions {
  readonly commonName: string;
  readonly server?: boolean;
  readonly client?: boolean;
  readonly dnsNames?: readonly string[];
  readonly ips?: readonly string[];
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}

/** Issues a leaf certificate signed by ca. */
export async function issue(ca: TestCa, options: LeafOptions): Promise<PemPair> {
  const keys = await newKeys();
  const usages: string[] = [];
  if (options.server) usages.push(x509.ExtendedKeyUsage.serverAuth);
  if (options.client) usages.push(x509.ExtendedKeyUsage.clientAuth);
  const names = [
    ...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(options.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  const certificate = await x509.X509CertificateGenerator.create({
    subject: `CN=${options.commonName}`,
    issuer: ca.certificate.subject,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: EC,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY),
    notAfter: options.notAfter ?? new Date(Date.now() + 30 * DAY),
    extensions: [
      new x509.BasicConstraintsExtension(false),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(usages),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
    ],
  });
  return { cert: certificate.toString('pem'), key: await pemKey(keys.privateKey) };
}

/** Paths of the PEM files of a test PKI. */
export interface PkiFiles {
  readonly caFile: string;
  /** The CA's key: Cluster API mode mints client certificates from it, as KCP does from `<cluster>-etcd`. */
  readonly caKeyFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** A CA that signed nothing the cluster trusts or serves, for "wrong CA" tests. */
  readonly otherCaFile: string;
  /** Per-member serving certificates naming each member's own IP, by member name (see writeTestPki). */
  readonly memberServer: Readonly<Record<string, { readonly certFile: string; readonly keyFile: string }>>;
}

/**
 * Writes a CA, a loopback server certificate, a client certificate and an unrelated CA into dir, and a
 * serving certificate per entry of memberIps (member name to IP) whose SANs are that IP and sharedIps (the
 * address of a load balancer in front of the members, which clients then verify the members' certificates by).
 */
export async function writeTestPki(dir: string, memberIps: Readonly<Record<string, string>> = {}, sharedIps: readonly string[] = []): Promise<PkiFiles> {
  const ca = await makeCa('etcd-probe test CA');
  const other = await makeCa('some other CA');
  const server = await issue(ca, { commonName: 'etcd', server: true, client: true, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  const client = await issue(ca, { commonName: 'etcd-probe', client: true });
  const files: PkiFiles = {
    caFile: join(dir, 'ca.crt'),
    caKeyFile: join(dir, 'ca.key'),
    serverCertFile: join(dir, 'server.crt'),
    serverKeyFile: join(dir, 'server.key'),
    clientCertFile: join(dir, 'client.crt'),
    clientKeyFile: join(dir, 'client.key'),
    otherCaFile: join(dir, 'other-ca.crt'),
    memberServer: Object.fromEntries(
      Object.keys(memberIps).map((name) => [name, { certFile: join(dir, `${name}-server.crt`), keyFile: join(dir, `${name}-server.key`) }]),
    ),
  };
  writeFileSync(files.caFile, ca.cert);
  writeFileSync(files.caKeyFile, ca.key, { mode: 0o600 });
  writeFileSync(files.serverCertFile, server.cert);
  writeFileSync(files.serverKeyFile, server.key, { mode: 0o600 });
  writeFileSync(files.clientCertFile, client.cert);
  writeFileSync(files.clientKeyFile, client.key, { mode: 0o600 });
  writeFileSync(files.otherCaFile, other.cert);
  for (const [name, ip] of Object.entries(memberIps)) {
    // Client usage too: etcd 3.4's gRPC gateway dials its own listener with this certificate.
    const own = await issue(ca, { commonName: name, server: true, client: true, ips: [ip, ...sharedIps] });
    const paths = files.memberServer[name] as { certFile: string; keyFile: string };
    writeFileSync(paths.certFile, own.cert);
    writeFileSync(paths.keyFile, own.key, { mode: 0o600 });
  }
  return files;
}
