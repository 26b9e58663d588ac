import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBearer, readTokenFile, tokenDigest } from '../../src/auth/bearer-token.ts';

const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function tokenFile(name: string, content: string): { path: string; source: string } {
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path, source: 'ETCD_PROBE_AUTH_TOKEN_FILE' };
}

describe('readTokenFile', () => {
  it('reads the token, trimmed of the newline that editors and Secrets add', () => {
    expect(readTokenFile(tokenFile('ok', '  s3cr3t-Token_1.x~+/==\n'))).toBe('s3cr3t-Token_1.x~+/==');
  });

  it.each([
    ['empty', '', /^ETCD_PROBE_AUTH_TOKEN_FILE: .*empty is empty \(it must hold the bearer token\)$/],
    ['blank', ' \n\t\n', /^ETCD_PROBE_AUTH_TOKEN_FILE: .*blank is empty/],
    ['two-lines', 'abc\ndef\n', /does not hold one bearer token \(letters, digits and -._~\+\/ only, on one line\)$/],
    ['spaced', 'abc def', /does not hold one bearer token/],
    ['unicode', 'päss', /does not hold one bearer token/],
  ])('refuses a %s file, naming the setting and never quoting the content', (name, content, message) => {
    const file = tokenFile(name, content);
    expect(() => readTokenFile(file)).toThrow(message);
    try {
      readTokenFile(file);
    } catch (error) {
      if (content.trim() !== '') expect((error as Error).message).not.toContain(content.trim().slice(0, 3));
    }
  });

  it('says when the file is missing', () => {
    expect(() => readTokenFile({ path: join(dir, 'nope'), source: '--auth-token-file' })).toThrow(`--auth-token-file: cannot read ${join(dir, 'nope')}: no such file`);
  });
});

describe('checkBearer', () => {
  const expected = tokenDigest('s3cr3t');
  it.each([
    ['Bearer s3cr3t', 'ok'],
    ['bearer s3cr3t', 'ok'],
    ['BEARER   s3cr3t ', 'ok'],
    [undefined, 'missing'],
    ['', 'missing'],
    // Basic, as a browser sends it after its login prompt: the token is the password, the user is ignored.
    [`Basic ${Buffer.from('anyone:s3cr3t').toString('base64')}`, 'ok'],
    [`basic ${Buffer.from(':s3cr3t').toString('base64')}`, 'ok'],
    [`Basic ${Buffer.from('s3cr3t:').toString('base64')}`, 'invalid'],
    ['Basic czNjcjN0', 'invalid'],
    ['Basic !!!', 'invalid'],
    ['Digest username="x"', 'missing'],
    ['s3cr3t', 'missing'],
    ['Bearer', 'invalid'],
    ['Bearer ', 'invalid'],
    ['Bearer s3cr3', 'invalid'],
    ['Bearer s3cr3t2', 'invalid'],
    ['Bearer S3CR3T', 'invalid'],
    ['Bearer s3cr3t extra', 'invalid'],
    [`Bearer ${'x'.repeat(4000)}`, 'invalid'],
  ] as const)('%j is %s', (header, outcome) => {
    expect(checkBearer(header, expected)).toBe(outcome);
  });
});
