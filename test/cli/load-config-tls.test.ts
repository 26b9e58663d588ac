import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput, ConfigResult } from '../../src/cli/load-config.ts';
import { errorsOf, ok, resolve as resolveWith } from './load-config-helpers.ts';
import { issue, makeCa, writeTestPki, type PkiFiles } from '#lab/certs/pki.ts';

// The test PKI is valid around the real time; the expired and future certificates around this instant.
const NOW = new Date();
const MID_2026 = new Date('2026-06-01T12:00:00Z');

let dir: string;
let pki: PkiFiles;
let expiredCertFile: string;
let expiredKeyFile: string;
let futureCertFile: string;
let futureKeyFile: string;
let notPemFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-resolve-config-'));
  pki = await writeTestPki(dir);
  const ca = await makeCa('resolve-config test CA');
  const expired = await issue(ca, {
    commonName: 'expired',
    client: true,
    notBefore: new Date('2024-01-01T00:00:00Z'),
    notAfter: new Date('2025-01-01T00:00:00Z'),
  });
  const future = await issue(ca, {
    commonName: 'future',
    client: true,
    notBefore: new Date('2027-01-01T00:00:00Z'),
    notAfter: new Date('2028-01-01T00:00:00Z'),
  });
  expiredCertFile = join(dir, 'expired.crt');
  expiredKeyFile = join(dir, 'expired.key');
  futureCertFile = join(dir, 'future.crt');
  futureKeyFile = join(dir, 'future.key');
  notPemFile = join(dir, 'not-pem.crt');
  writeFileSync(expiredCertFile, expired.cert);
  writeFileSync(expiredKeyFile, expired.key);
  writeFileSync(futureCertFile, future.cert);
  writeFileSync(futureKeyFile, future.key);
  writeFileSync(notPemFile, 'this is not a certificate\n');
  mkdirSync(join(dir, 'a-directory'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function resolve(env: ConfigInput['env'] = {}, argv: readonly string[] = [], now = NOW): ConfigResult {
  return resolveWith(env, argv, now);
}

describe('resolveConfig: TLS files', () => {
  it('reads a full set of TLS files from flags', () => {
    const result = ok(
      resolve({ ETCD_PROBE_ENDPOINTS: 'https://127.0.0.1:2379' }, [
        `--cacert=${pki.caFile}`,
        `--cert=${pki.clientCertFile}`,
        `--key=${pki.clientKeyFile}`,
      ]),
    );
    expect(result.config.caFile).toBe(pki.caFile);
    expect(result.config.certFile).toBe(pki.clientCertFile);
    expect(result.config.keyFile).toBe(pki.clientKeyFile);
    expect(result.tls.ca?.equals(readFileSync(pki.caFile))).toBe(true);
    expect(result.tls.cert?.equals(readFileSync(pki.clientCertFile))).toBe(true);
    expect(result.tls.key?.equals(readFileSync(pki.clientKeyFile))).toBe(true);
    expect(result.tlsFiles).toEqual({
      ca: { path: pki.caFile, source: '--cacert' },
      cert: { path: pki.clientCertFile, source: '--cert' },
      key: { path: pki.clientKeyFile, source: '--key' },
    });
    expect(result.warnings).toEqual([]);
  });

  it('keeps the TLS material out of the config, which holds only paths', () => {
    const result = ok(
      resolve({ ETCD_PROBE_ENDPOINTS: 'https://127.0.0.1:2379', ETCD_PROBE_CERT: pki.clientCertFile, ETCD_PROBE_KEY: pki.clientKeyFile }),
    );
    expect(JSON.stringify(result.config)).not.toContain('PRIVATE KEY');
  });

  it('names the variable and the file that cannot be read, for every file', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_CERT: '/nonexistent/x.crt', ETCD_PROBE_KEY: '/nonexistent/x.key' }))).toEqual([
      'ETCD_PROBE_CERT: cannot read /nonexistent/x.crt: no such file',
      'ETCD_PROBE_KEY: cannot read /nonexistent/x.key: no such file',
    ]);
    expect(errorsOf(resolve({ ETCD_PROBE_CERT: '/nonexistent/x.crt', ETCD_PROBE_KEY: pki.clientKeyFile }))).toEqual([
      'ETCD_PROBE_CERT: cannot read /nonexistent/x.crt: no such file',
    ]);
  });

  it('reports bad files together with other bad settings', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_TIMEOUT: 'abc', ETCD_PROBE_CACERT: '/nonexistent/ca.crt' }))).toEqual([
      "ETCD_PROBE_TIMEOUT: 'abc' is not a duration (write it with a unit, e.g. 5s or 500ms)",
      'ETCD_PROBE_CACERT: cannot read /nonexistent/ca.crt: no such file',
    ]);
  });

  it('names the flag when the file came from a flag', () => {
    expect(errorsOf(resolve({}, ['--cacert=/nonexistent/ca.crt']))).toEqual([
      '--cacert: cannot read /nonexistent/ca.crt: no such file',
    ]);
  });

  it('requires the key when the certificate is set', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_CERT: pki.clientCertFile }))).toEqual([
      'ETCD_PROBE_KEY: required when ETCD_PROBE_CERT is set',
    ]);
  });

  it('requires the certificate when the key is set by flag', () => {
    expect(errorsOf(resolve({}, [`--key=${pki.clientKeyFile}`]))).toEqual(['ETCD_PROBE_CERT: required when --key is set']);
  });

  it('rejects a CA file that holds no PEM certificate', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_CACERT: notPemFile }))).toEqual([
      `ETCD_PROBE_CACERT: ${notPemFile} holds no PEM certificate`,
    ]);
  });

  it('rejects a key file that holds no private key', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_CERT: pki.clientCertFile, ETCD_PROBE_KEY: pki.caFile }))).toEqual([
      `ETCD_PROBE_KEY: ${pki.caFile} holds no usable PEM private key (encrypted keys are not supported)`,
    ]);
  });

  it('rejects a key that does not match the certificate', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_CERT: pki.clientCertFile, ETCD_PROBE_KEY: pki.serverKeyFile }))).toEqual([
      `ETCD_PROBE_KEY: ${pki.serverKeyFile} does not match the certificate in ${pki.clientCertFile}`,
    ]);
  });

  it('rejects a directory given as a file', () => {
    const path = join(dir, 'a-directory');
    expect(errorsOf(resolve({ ETCD_PROBE_CACERT: path }))).toEqual([`ETCD_PROBE_CACERT: cannot read ${path}: is a directory`]);
  });

  it('warns about an expired client certificate', () => {
    const result = ok(
      resolve({ ETCD_PROBE_ENDPOINTS: 'https://127.0.0.1:2379', ETCD_PROBE_CERT: expiredCertFile, ETCD_PROBE_KEY: expiredKeyFile }, [], MID_2026),
    );
    expect(result.warnings).toEqual(['the client certificate expired at 2025-01-01T00:00:00.000Z']);
  });

  it('warns about a client certificate that is not valid yet', () => {
    const result = ok(
      resolve({ ETCD_PROBE_ENDPOINTS: 'https://127.0.0.1:2379', ETCD_PROBE_CERT: futureCertFile, ETCD_PROBE_KEY: futureKeyFile }, [], MID_2026),
    );
    expect(result.warnings).toEqual(['the client certificate is not valid before 2027-01-01T00:00:00.000Z']);
  });

  it('judges the certificate against the injected clock, not the real one', () => {
    const env = { ETCD_PROBE_ENDPOINTS: 'https://127.0.0.1:2379', ETCD_PROBE_CERT: expiredCertFile, ETCD_PROBE_KEY: expiredKeyFile };
    expect(ok(resolve(env, [], new Date('2024-06-01T00:00:00Z'))).warnings).toEqual([]);
  });

  it('warns when TLS files are set but every endpoint is http://', () => {
    const result = ok(resolve({ ETCD_PROBE_ENDPOINTS: 'http://10.0.0.1:2379,http://10.0.0.2:2379', ETCD_PROBE_CACERT: pki.caFile }));
    expect(result.warnings).toEqual([
      'TLS files are set but every endpoint in ETCD_PROBE_ENDPOINTS is http://, so they are not used',
    ]);
  });

  it('names the default endpoints variable, or the flag, in that warning', () => {
    expect(ok(resolve({ ETCD_PROBE_CACERT: pki.caFile })).warnings).toEqual([
      'TLS files are set but every endpoint in ETCD_PROBE_ENDPOINTS is http://, so they are not used',
    ]);
    expect(ok(resolve({}, ['--endpoints=http://10.0.0.1:2379', `--cert=${pki.clientCertFile}`, `--key=${pki.clientKeyFile}`])).warnings).toEqual([
      'TLS files are set but every endpoint in --endpoints is http://, so they are not used',
    ]);
  });

  it('does not warn when one endpoint is https://', () => {
    const result = ok(resolve({ ETCD_PROBE_ENDPOINTS: 'http://10.0.0.1:2379,https://10.0.0.2:2379', ETCD_PROBE_CACERT: pki.caFile }));
    expect(result.warnings).toEqual([]);
  });

  it('puts unknown-variable warnings before certificate warnings', () => {
    const result = ok(
      resolve({
        ETCD_PROBE_ENDPOINTS: 'https://127.0.0.1:2379',
        ETCD_PROBE_CERT: expiredCertFile,
        ETCD_PROBE_KEY: expiredKeyFile,
        ETCD_PROBE_SOMETHING_ELSE: 'x',
      }, [], MID_2026),
    );
    expect(result.warnings).toEqual([
      'ETCD_PROBE_SOMETHING_ELSE: unknown setting, ignored',
      'the client certificate expired at 2025-01-01T00:00:00.000Z',
    ]);
  });
});
