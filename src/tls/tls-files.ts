import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config-error.ts';

/** PEM material for etcd's client connections; null parts are not used. Never log it. */
export interface TlsMaterial {
  readonly ca: Buffer | null;
  readonly cert: Buffer | null;
  readonly key: Buffer | null;
}

/** A file setting: its path (null when unset) and the variable or flag that names it. */
export interface FileSetting {
  readonly path: string | null;
  readonly source: string;
}

/** The files to read, each with the name of its setting (for error messages). */
export interface TlsFiles {
  readonly ca: FileSetting;
  readonly cert: FileSetting;
  readonly key: FileSetting;
}

/** TLS files with the material read from them at start, for a reloader to begin from. */
export interface LoadedTls {
  readonly files: TlsFiles;
  readonly material: TlsMaterial;
}

interface NamedFile {
  readonly path: string;
  readonly source: string;
}

function named(file: FileSetting): NamedFile | null {
  return file.path === null ? null : { path: file.path, source: file.source };
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a directory',
  ELOOP: 'too many symbolic links',
};

function readPem(file: NamedFile): Buffer {
  let data: Buffer;
  try {
    data = readFileSync(file.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new ConfigError(file.source, `cannot read ${file.path}: ${ERRNO_TEXT[code] ?? code.toLowerCase()}`);
  }
  if (data.length === 0) throw new ConfigError(file.source, `${file.path} is empty`);
  return data;
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

function parseCertificates(pem: Buffer, file: NamedFile): X509Certificate[] {
  const blocks = pem.toString('latin1').match(CERT_BLOCK) ?? [];
  if (blocks.length === 0) throw new ConfigError(file.source, `${file.path} holds no PEM certificate`);
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new ConfigError(file.source, `${file.path} holds a certificate that cannot be parsed`);
    }
  });
}

function parseKey(pem: Buffer, file: NamedFile): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    // The parser's message could quote key bytes; say only what is wrong.
    throw new ConfigError(file.source, `${file.path} holds no usable PEM private key (encrypted keys are not supported)`);
  }
}

function attempt<T>(errors: ConfigError[], read: () => T): T | null {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    errors.push(error);
    return null;
  }
}

/** Reads and checks every TLS file, collecting all problems: each readable, PEM, and the key matching the certificate. */
export function checkTlsFiles(files: TlsFiles): { material: TlsMaterial; errors: ConfigError[] } {
  const errors: ConfigError[] = [];
  const caFile = named(files.ca);
  const certFile = named(files.cert);
  const keyFile = named(files.key);
  if (certFile && !keyFile) errors.push(new ConfigError(files.key.source, `required when ${files.cert.source} is set`));
  if (keyFile && !certFile) errors.push(new ConfigError(files.cert.source, `required when ${files.key.source} is set`));
  const ca = caFile ? attempt(errors, () => readPem(caFile)) : null;
  if (ca && caFile) attempt(errors, () => parseCertificates(ca, caFile));
  const cert = certFile ? attempt(errors, () => readPem(certFile)) : null;
  const key = keyFile ? attempt(errors, () => readPem(keyFile)) : null;
  const leaf = cert && certFile ? attempt(errors, () => parseCertificates(cert, certFile)[0]) : null;
  const privateKey = key && keyFile ? attempt(errors, () => parseKey(key, keyFile)) : null;
  if (leaf && privateKey && certFile && keyFile && !leaf.checkPrivateKey(privateKey)) {
    errors.push(new ConfigError(keyFile.source, `${keyFile.path} does not match the certificate in ${certFile.path}`));
  }
  const paired = cert !== null && key !== null;
  return { material: { ca, cert: paired ? cert : null, key: paired ? key : null }, errors };
}

/** Reads and checks the TLS files; throws the first problem as a ConfigError. */
export function loadTlsMaterial(files: TlsFiles): TlsMaterial {
  const { material, errors } = checkTlsFiles(files);
  if (errors[0]) throw errors[0];
  return material;
}

/** The first certificate of a PEM bundle (the leaf), or null when there is none. */
export function leafCertificate(pem: Buffer | null): X509Certificate | null {
  const [leaf] = pem?.toString('latin1').match(CERT_BLOCK) ?? [];
  return leaf ? new X509Certificate(leaf) : null;
}

/** Warnings worth logging at start or reload: a certificate (`what`) that is expired or not yet valid. */
export function certificateWarnings(material: TlsMaterial, now: Date, what = 'the client certificate'): string[] {
  const certificate = leafCertificate(material.cert);
  if (!certificate) return [];
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (now < notBefore) return [`${what} is not valid before ${notBefore.toISOString()}`];
  if (now > notAfter) return [`${what} expired at ${notAfter.toISOString()}`];
  return [];
}

/** Whether two TLS materials are byte for byte the same. */
export function sameTls(a: TlsMaterial, b: TlsMaterial): boolean {
  const eq = (x: Buffer | null, y: Buffer | null) => (x === null ? y === null : y !== null && x.equals(y));
  return eq(a.ca, b.ca) && eq(a.cert, b.cert) && eq(a.key, b.key);
}
