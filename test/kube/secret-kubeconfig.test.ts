import { testTempDir } from '../helpers/temp-dir.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../../src/kube/kube-connection.ts';
import { KubeError } from '../../src/kube/kube-error.ts';
import { kubeconfigFromSecret } from '../../src/kube/secret-kubeconfig.ts';
import { issue, makeCa, type PemPair } from '#lab/certs/pki.ts';

// What a kubeconfig read from a Secret may carry, and how every refusal and parse error is worded:
// by field path and line, never by value. The same against the API stand-in, with a command that would
// leave a trace, is in test/integration/secret-kubeconfig.test.ts.

const LABEL = 'secret default/c1-kubeconfig';
const SECRET = 'PLANTED-SECRET-VALUE-93f1';
const b64 = (text: string) => Buffer.from(text).toString('base64');
let ca: PemPair;
let client: PemPair;

beforeAll(async () => {
  const authority = await makeCa('api CA');
  ca = authority;
  client = await issue(authority, { commonName: 'admin', client: true });
});

function kubeconfig(overrides: { cluster?: Record<string, unknown>; user?: Record<string, unknown>; context?: Record<string, unknown>; top?: Record<string, unknown> } = {}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'w', cluster: { server: 'https://api.example:6443', 'certificate-authority-data': b64(ca.cert), ...overrides.cluster } }],
    users: [{ name: 'u', user: overrides.user ?? { 'client-certificate-data': b64(client.cert), 'client-key-data': b64(client.key) } }],
    contexts: [{ name: 'c', context: { cluster: 'w', user: 'u', ...overrides.context } }],
    'current-context': 'c',
    preferences: {},
    ...overrides.top,
  });
}

function refusal(text: string): string {
  try {
    kubeconfigFromSecret(text, LABEL);
  } catch (error) {
    expect(error).toBeInstanceOf(KubeError);
    expect((error as KubeError).kind).toBe('invalid-secret');
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('kubeconfigFromSecret', () => {
  it('loads an https server, CA data and client certificate data, or a token, and nothing else', () => {
    const kc = kubeconfigFromSecret(kubeconfig(), LABEL);
    expect(kc.getCurrentCluster()).toEqual({ name: 'w', server: 'https://api.example:6443', caData: b64(ca.cert), skipTLSVerify: false });
    expect(kc.getCurrentUser()).toEqual({ name: 'u', certData: b64(client.cert), keyData: b64(client.key) });
    const withToken = kubeconfigFromSecret(kubeconfig({ user: { token: SECRET }, context: { namespace: 'kube-system' } }), LABEL);
    expect(withToken.getCurrentUser()).toEqual({ name: 'u', token: SECRET });
    expect(withToken.getContextObject('c')?.namespace).toBe('kube-system');
  });

  it.each([
    ['exec', () => ({ user: { exec: { command: 'id', args: [SECRET] } } }), /^users\[0\]\.user\.exec \(line \d+\) is not allowed in a kubeconfig read from a Secret \(it would run a command\)/],
    ['auth-provider', () => ({ user: { 'auth-provider': { name: 'gcp', config: { 'cmd-path': SECRET } } } }), /^users\[0\]\.user\.auth-provider \(line \d+\) is not allowed .* \(it would run a plugin or read local files\)/],
    ['token-file', () => ({ user: { 'token-file': `/var/run/${SECRET}` } }), /^users\[0\]\.user\.token-file \(line \d+\) is not allowed .* \(it would read a local file\)/],
    ['tokenFile', () => ({ user: { tokenFile: `/var/run/${SECRET}` } }), /^users\[0\]\.user\.tokenFile \(line \d+\) is not allowed .* \(it would read a local file\)/],
    ['client-certificate', () => ({ user: { 'client-certificate': `/etc/${SECRET}.crt`, 'client-key-data': b64(client.key) } }), /^users\[0\]\.user\.client-certificate \(line \d+\) is not allowed .* \(it would read a local file\)/],
    ['client-key', () => ({ user: { 'client-certificate-data': b64(client.cert), 'client-key': `/etc/${SECRET}.key` } }), /^users\[0\]\.user\.client-key \(line \d+\) is not allowed/],
    ['password', () => ({ user: { username: 'admin', password: SECRET } }), /^users\[0\]\.user\.username \(line \d+\) is not allowed .* \(basic authentication is not used\)/],
    ['impersonation', () => ({ user: { token: SECRET, as: 'system:admin' } }), /^users\[0\]\.user\.as \(line \d+\) is not allowed .* \(impersonation is not used\)/],
    ['certificate-authority', () => ({ cluster: { 'certificate-authority': `/etc/${SECRET}` } }), /^clusters\[0\]\.cluster\.certificate-authority \(line \d+\) is not allowed .* \(it would read a local file\)/],
    ['insecure-skip-tls-verify', () => ({ cluster: { 'insecure-skip-tls-verify': true } }), /^clusters\[0\]\.cluster\.insecure-skip-tls-verify \(line \d+\) is not allowed .* \(it would stop verifying the API server's certificate\)/],
    ['proxy-url', () => ({ cluster: { 'proxy-url': `http://${SECRET}:3128` } }), /^clusters\[0\]\.cluster\.proxy-url \(line \d+\) is not allowed .* \(it would send the traffic through a proxy\)/],
    ['http server', () => ({ cluster: { server: `http://${SECRET}:8080` } }), /^clusters\[0\]\.cluster\.server \(line \d+\) must be an https:\/\/ URL/],
    ['server credentials', () => ({ cluster: { server: `https://admin:${SECRET}@api:6443` } }), /^clusters\[0\]\.cluster\.server \(line \d+\) must not carry credentials$/],
    ['unknown field', () => ({ user: { token: 'x', [SECRET]: 1 } }), /^users\[0\]\.user \(line \d+\) has a field on line \d+ that a kubeconfig read from a Secret may not carry/],
    ['unknown top-level field', () => ({ top: { [SECRET]: 1 } }), /^the kubeconfig has a field on line \d+ that a kubeconfig read from a Secret may not carry/],
    ['bad key data', () => ({ user: { 'client-certificate-data': b64(client.cert), 'client-key-data': b64(`-----BEGIN PRIVATE KEY-----\n${SECRET}\n-----END PRIVATE KEY-----\n`) } }), /^users\[0\]\.user\.client-key-data \(line \d+\) is not base64 of a PEM private key$/],
    ['bad CA data', () => ({ cluster: { 'certificate-authority-data': b64(SECRET) } }), /^clusters\[0\]\.cluster\.certificate-authority-data \(line \d+\) is not base64 of a PEM certificate$/],
    ['key without certificate', () => ({ user: { 'client-key-data': b64(client.key) } }), /^users\[0\]\.user \(line \d+\) needs client-certificate-data and client-key-data together$/],
    ['token of the wrong type', () => ({ user: { token: { value: SECRET } } }), /^users\[0\]\.user\.token \(line \d+\) must be a non-empty string$/],
  ] as const)('refuses %s, naming the field and its line, never the value', (_what, overrides, message) => {
    // The overrides are made lazily: the certificates exist only once beforeAll has run.
    const text = refusal(kubeconfig(overrides() as Parameters<typeof kubeconfig>[0]));
    expect(text.startsWith(`${LABEL}: `)).toBe(true);
    expect(text.slice(LABEL.length + 2)).toMatch(message);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(b64(SECRET).slice(0, 12));
  });

  it('refuses a current context that names nothing, or a cluster or user that is not there', () => {
    expect(refusal(kubeconfig().replace('current-context: c', 'current-context: other'))).toMatch(/current-context \(line \d+\) names no context of the kubeconfig$/);
    expect(refusal(kubeconfig({ context: { cluster: 'gone' } }))).toMatch(/names a context whose cluster is not in the kubeconfig$/);
    expect(refusal(kubeconfig({ context: { user: 'gone' } }))).toMatch(/names a context whose user is not in the kubeconfig$/);
  });

  it('reports YAML mistakes by line, column and kind, never with the text around them', () => {
    const broken = `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${SECRET}\n    client-key-data: ${b64(SECRET)}\n   oops: [\n`;
    const text = refusal(broken).replace(/^.*?: /, '');
    expect(refusal(broken)).toMatch(/^secret default\/c1-kubeconfig: not valid YAML at line \d+, column \d+ \([a-z ]+\)$/);
    expect(text).not.toContain(SECRET);
    expect(refusal(`a: &x ${SECRET}\nb: *y\n`)).not.toContain(SECRET);
    expect(refusal(`${SECRET}`)).toBe(`${LABEL}: the kubeconfig must be a mapping`);
    expect(refusal('a: [1, 2]\na: 3\n')).toMatch(/not valid YAML at line 2, column 1 \(duplicate key\)$/);
  });
});

describe("loadKubeConfig of the operator's file", () => {
  it('reports a YAML mistake by line, never quoting the file', () => {
    const dir = testTempDir('etcd-probe-kubeconfig-file-');
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${SECRET}\n   oops: x: y\n`);
    expect(() => loadKubeConfig({ kind: 'file', path })).toThrow(new RegExp(`^kubeconfig ${path}: not valid YAML at line \\d+, column \\d+ \\([a-z ]+\\)$`));
    try {
      loadKubeConfig({ kind: 'file', path });
    } catch (error) {
      expect((error as Error).message).not.toContain(SECRET);
    }
    expect(() => loadKubeConfig({ kind: 'file', path: join(dir, 'none') })).toThrow(`kubeconfig ${join(dir, 'none')}: cannot read it (ENOENT)`);
  });
});
