import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tokenDigest } from '../../src/auth/bearer-token.ts';
import { TokenFile } from '../../src/auth/token-file.ts';
import type { ReloadFailure } from '../../src/tls/tls-file-reloader.ts';

describe('TokenFile', () => {
  it('takes a changed token into use, accepts none while the file is broken (fail closed), recovers, and reports each change once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-token-file-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'token');
    writeFileSync(path, 'first\n');
    const failures: ReloadFailure[] = [];
    let reloads = 0;
    const token = new TokenFile({ path, source: 'ETCD_PROBE_AUTH_TOKEN_FILE' }, 'first', { reloaded: () => reloads++, failed: (f) => failures.push(f) });
    expect(token.refresh()).toBe(false);
    expect(token.digest()?.equals(tokenDigest('first'))).toBe(true);

    // Written elsewhere and renamed over it, as a Secret volume or an atomic writer does.
    writeFileSync(join(dir, 'next'), 'second');
    renameSync(join(dir, 'next'), path);
    expect(token.refresh()).toBe(true);
    expect(token.digest()?.equals(tokenDigest('second'))).toBe(true);
    expect(reloads).toBe(1);

    // Emptied (a revoked Secret): no token is in force, not even the last one.
    writeFileSync(path, '\n');
    expect(token.refresh()).toBe(false);
    expect(token.refresh()).toBe(false);
    expect(token.digest()).toBeNull();
    expect(failures).toEqual([{ file: path, setting: 'ETCD_PROBE_AUTH_TOKEN_FILE', problem: `${path} is empty (it must hold the bearer token)` }]);

    // Valid again, even with the same token as before: back in force.
    writeFileSync(path, 'second\n');
    expect(token.refresh()).toBe(true);
    expect(token.digest()?.equals(tokenDigest('second'))).toBe(true);
    expect(reloads).toBe(2);

    rmSync(path);
    expect(token.refresh()).toBe(false);
    expect(failures[1]?.problem).toBe(`cannot read ${path}: no such file`);
    expect(token.digest()).toBeNull();
  });
});
