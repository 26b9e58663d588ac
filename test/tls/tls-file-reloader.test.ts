import { mkdtempSync, readFileSync, renameSync, symlinkSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { TlsFileReloader, type ReloadFailure } from '../../src/tls/tls-file-reloader.ts';
import { loadTlsMaterial, type TlsFiles, type TlsMaterial } from '../../src/tls/tls-files.ts';
import { issue, makeCa, type PemPair } from '#lab/certs/pki.ts';

let first: PemPair;
let second: PemPair;

beforeAll(async () => {
  const ca = await makeCa('reloader test CA');
  first = await issue(ca, { commonName: 'first', client: true });
  second = await issue(ca, { commonName: 'second', client: true });
});

/** A folder for one test, removed when it finishes. */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-reload-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function setup(dir: string): { files: TlsFiles; reloader: TlsFileReloader; reloaded: TlsMaterial[]; failures: ReloadFailure[] } {
  const files: TlsFiles = {
    ca: { path: null, source: 'ETCD_PROBE_CACERT' },
    cert: { path: join(dir, 'tls.crt'), source: 'ETCD_PROBE_CERT' },
    key: { path: join(dir, 'tls.key'), source: 'ETCD_PROBE_KEY' },
  };
  const reloaded: TlsMaterial[] = [];
  const failures: ReloadFailure[] = [];
  const reloader = new TlsFileReloader(files, loadTlsMaterial(files), { reloaded: (m) => reloaded.push(m), failed: (f) => failures.push(f) });
  return { files, reloader, reloaded, failures };
}

function write(dir: string, pair: PemPair): void {
  writeFileSync(join(dir, 'tls.crt'), pair.cert);
  writeFileSync(join(dir, 'tls.key'), pair.key);
}

describe('TlsFileReloader', () => {
  it('keeps the material while the files are unchanged, and takes changed files into use', () => {
    const dir = tempDir();
    write(dir, first);
    const { reloader, reloaded, failures } = setup(dir);
    expect(reloader.refresh()).toBe(false);
    expect(reloader.current().cert?.toString()).toBe(first.cert);
    write(dir, second);
    expect(reloader.refresh()).toBe(true);
    expect(reloader.current().cert?.toString()).toBe(second.cert);
    expect(reloader.current().key?.toString()).toBe(second.key);
    expect(reloaded).toHaveLength(1);
    expect(reloader.refresh()).toBe(false);
    expect(failures).toEqual([]);
  });

  it('keeps the previous material when a new file is broken, and reports it once per change, naming file and setting', () => {
    const dir = tempDir();
    write(dir, first);
    const { reloader, failures } = setup(dir);
    writeFileSync(join(dir, 'tls.crt'), 'not a certificate');
    expect(reloader.refresh()).toBe(false);
    expect(reloader.refresh()).toBe(false);
    expect(reloader.current().cert?.toString()).toBe(first.cert);
    expect(failures).toEqual([{ file: join(dir, 'tls.crt'), setting: 'ETCD_PROBE_CERT', problem: `${join(dir, 'tls.crt')} holds no PEM certificate` }]);

    // A certificate with somebody else's key: still the old material.
    writeFileSync(join(dir, 'tls.crt'), second.cert);
    expect(reloader.refresh()).toBe(false);
    expect(failures[1]).toEqual({ file: join(dir, 'tls.key'), setting: 'ETCD_PROBE_KEY', problem: `${join(dir, 'tls.key')} does not match the certificate in ${join(dir, 'tls.crt')}` });
    expect(reloader.current().cert?.toString()).toBe(first.cert);

    // Completing the pair heals it.
    writeFileSync(join(dir, 'tls.key'), second.key);
    expect(reloader.refresh()).toBe(true);
    expect(reloader.current().cert?.toString()).toBe(second.cert);
    expect(failures).toHaveLength(2);
  });

  it('follows a Kubernetes Secret volume swapping its ..data symlink', () => {
    const dir = tempDir();
    const v1 = join(dir, '..v1');
    const v2 = join(dir, '..v2');
    mkdirSync(v1);
    mkdirSync(v2);
    write(v1, first);
    write(v2, second);
    symlinkSync('..v1', join(dir, '..data'));
    symlinkSync('..data/tls.crt', join(dir, 'tls.crt'));
    symlinkSync('..data/tls.key', join(dir, 'tls.key'));
    const { reloader } = setup(dir);
    expect(reloader.current().cert?.toString()).toBe(first.cert);
    symlinkSync('..v2', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    rmSync(v1, { recursive: true });
    expect(reloader.refresh()).toBe(true);
    expect(reloader.current().cert?.toString()).toBe(second.cert);
  });

  it('keeps the previous material when the owner cannot use the new one', () => {
    const dir = tempDir();
    write(dir, first);
    const files: TlsFiles = {
      ca: { path: null, source: 'ETCD_PROBE_TLS_CLIENT_CA' },
      cert: { path: join(dir, 'tls.crt'), source: 'ETCD_PROBE_TLS_CERT' },
      key: { path: join(dir, 'tls.key'), source: 'ETCD_PROBE_TLS_KEY' },
    };
    const failures: ReloadFailure[] = [];
    const reloader = new TlsFileReloader(files, loadTlsMaterial(files), { reloaded: () => {}, failed: (f) => failures.push(f) }, () => {
      throw new Error('unsupported');
    });
    write(dir, second);
    expect(reloader.refresh()).toBe(false);
    expect(reloader.current().cert?.equals(Buffer.from(first.cert))).toBe(true);
    expect(failures[0]?.setting).toBe('ETCD_PROBE_TLS_CERT');
    expect(failures[0]?.problem).toMatch(/cannot be used: unsupported$/);
    expect(readFileSync(join(dir, 'tls.crt'), 'utf8')).toBe(second.cert);
  });
});
