import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { certificateWarnings, loadTlsMaterial, type TlsFiles } from '../../src/tls/tls-files.ts';
import { issue, makeCa, writeTestPki, type PkiFiles } from '#lab/certs/pki.ts';

let dir: string;
let pki: PkiFiles;
let bundleFile: string;
let emptyFile: string;
let garbageFile: string;
let brokenBlockFile: string;
let subdir: string;
let windowCert: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-tls-files-'));
  pki = await writeTestPki(dir);
  bundleFile = join(dir, 'bundle.crt');
  writeFileSync(bundleFile, readFileSync(pki.caFile, 'latin1') + readFileSync(pki.otherCaFile, 'latin1'));
  emptyFile = join(dir, 'empty.crt');
  writeFileSync(emptyFile, '');
  garbageFile = join(dir, 'garbage.pem');
  writeFileSync(garbageFile, 'not PEM at all\n');
  brokenBlockFile = join(dir, 'broken.crt');
  writeFileSync(brokenBlockFile, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  subdir = join(dir, 'subdir');
  mkdirSync(subdir);
  const ca = await makeCa('window CA');
  const leaf = await issue(ca, {
    commonName: 'window',
    client: true,
    notBefore: new Date('2030-01-01T00:00:00Z'),
    notAfter: new Date('2030-02-01T00:00:00Z'),
  });
  windowCert = Buffer.from(leaf.cert);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function files(paths: { ca?: string; cert?: string; key?: string }): TlsFiles {
  return {
    ca: { path: paths.ca ?? null, source: 'ETCD_PROBE_CACERT' },
    cert: { path: paths.cert ?? null, source: 'ETCD_PROBE_CERT' },
    key: { path: paths.key ?? null, source: '--key' },
  };
}

/** The ConfigError that loading throws; fails the test when it throws nothing or something else. */
function problemLoading(paths: { ca?: string; cert?: string; key?: string }): ConfigError {
  try {
    loadTlsMaterial(files(paths));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, but the files loaded');
}

describe('loadTlsMaterial', () => {
  it('returns nothing when no file is set', () => {
    expect(loadTlsMaterial(files({}))).toEqual({ ca: null, cert: null, key: null });
  });

  it('reads a CA alone', () => {
    const material = loadTlsMaterial(files({ ca: pki.caFile }));
    expect(material.ca?.equals(readFileSync(pki.caFile))).toBe(true);
    expect(material.cert).toBeNull();
    expect(material.key).toBeNull();
  });

  it('reads a CA bundle of several certificates', () => {
    expect(loadTlsMaterial(files({ ca: bundleFile })).ca?.equals(readFileSync(bundleFile))).toBe(true);
  });

  it('reads a certificate with its key, without a CA', () => {
    const material = loadTlsMaterial(files({ cert: pki.clientCertFile, key: pki.clientKeyFile }));
    expect(material.ca).toBeNull();
    expect(material.cert?.equals(readFileSync(pki.clientCertFile))).toBe(true);
    expect(material.key?.equals(readFileSync(pki.clientKeyFile))).toBe(true);
  });

  it('reads all three', () => {
    const material = loadTlsMaterial(files({ ca: pki.caFile, cert: pki.clientCertFile, key: pki.clientKeyFile }));
    expect([material.ca, material.cert, material.key].every((b) => Buffer.isBuffer(b) && b.length > 0)).toBe(true);
  });

  it('requires the key with the certificate, naming both settings', () => {
    expect(problemLoading({ cert: pki.clientCertFile }).message).toBe('--key: required when ETCD_PROBE_CERT is set');
  });

  it('requires the certificate with the key', () => {
    expect(problemLoading({ key: pki.clientKeyFile }).message).toBe('ETCD_PROBE_CERT: required when --key is set');
  });

  it('rejects a key that belongs to another certificate', () => {
    const error = problemLoading({ cert: pki.clientCertFile, key: pki.serverKeyFile });
    expect(error.source).toBe('--key');
    expect(error.problem).toBe(`${pki.serverKeyFile} does not match the certificate in ${pki.clientCertFile}`);
  });

  it('rejects an empty file', () => {
    expect(problemLoading({ ca: emptyFile }).message).toBe(`ETCD_PROBE_CACERT: ${emptyFile} is empty`);
    expect(problemLoading({ cert: pki.clientCertFile, key: emptyFile }).message).toBe(`--key: ${emptyFile} is empty`);
  });

  it('rejects a directory', () => {
    expect(problemLoading({ ca: subdir }).message).toBe(`ETCD_PROBE_CACERT: cannot read ${subdir}: is a directory`);
  });

  it('rejects a missing file', () => {
    const path = join(dir, 'missing.crt');
    expect(problemLoading({ cert: path, key: pki.clientKeyFile }).message).toBe(`ETCD_PROBE_CERT: cannot read ${path}: no such file`);
  });

  it('rejects a path through a regular file', () => {
    const path = join(pki.caFile, 'x.crt');
    expect(problemLoading({ ca: path }).message).toBe(`ETCD_PROBE_CACERT: cannot read ${path}: a parent is not a directory`);
  });

  it('rejects a file without a PEM certificate, as CA or as client certificate', () => {
    expect(problemLoading({ ca: garbageFile }).message).toBe(`ETCD_PROBE_CACERT: ${garbageFile} holds no PEM certificate`);
    expect(problemLoading({ cert: pki.clientKeyFile, key: pki.clientKeyFile }).message).toBe(
      `ETCD_PROBE_CERT: ${pki.clientKeyFile} holds no PEM certificate`,
    );
  });

  it('rejects a PEM block that is no certificate', () => {
    expect(problemLoading({ ca: brokenBlockFile }).message).toBe(
      `ETCD_PROBE_CACERT: ${brokenBlockFile} holds a certificate that cannot be parsed`,
    );
  });

  it('rejects a key file without a key, without quoting it', () => {
    const error = problemLoading({ cert: pki.clientCertFile, key: garbageFile });
    expect(error.message).toBe(`--key: ${garbageFile} holds no usable PEM private key (encrypted keys are not supported)`);
  });

  it('checks the CA before the client files', () => {
    expect(problemLoading({ ca: garbageFile, cert: pki.clientCertFile, key: garbageFile }).source).toBe('ETCD_PROBE_CACERT');
  });
});

describe('certificateWarnings', () => {
  const material = () => ({ ca: null, cert: windowCert, key: null });

  it('says nothing without a client certificate', () => {
    expect(certificateWarnings({ ca: readFileSync(pki.caFile), cert: null, key: null }, new Date('2100-01-01T00:00:00Z'))).toEqual([]);
  });

  it('says nothing inside the validity window', () => {
    expect(certificateWarnings(material(), new Date('2030-01-15T00:00:00Z'))).toEqual([]);
  });

  it('warns before the window', () => {
    expect(certificateWarnings(material(), new Date('2029-12-31T23:59:59Z'))).toEqual([
      'the client certificate is not valid before 2030-01-01T00:00:00.000Z',
    ]);
  });

  it('warns after the window', () => {
    expect(certificateWarnings(material(), new Date('2030-02-01T00:00:01Z'))).toEqual([
      'the client certificate expired at 2030-02-01T00:00:00.000Z',
    ]);
  });

  it('judges only the leaf, the first certificate of a chain', () => {
    // The test CA expires 30 days after this run; in 2030 only the leaf is valid.
    const chain = Buffer.concat([windowCert, readFileSync(pki.caFile)]);
    expect(certificateWarnings({ ca: null, cert: chain, key: null }, new Date('2030-01-15T00:00:00Z'))).toEqual([]);
    expect(certificateWarnings({ ca: null, cert: chain, key: null }, new Date('2030-03-01T00:00:00Z'))).toEqual([
      'the client certificate expired at 2030-02-01T00:00:00.000Z',
    ]);
  });
});
