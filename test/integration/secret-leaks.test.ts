import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCa, type TestCa } from '#lab/certs/pki.ts';
import { capiCluster } from '#lab/kube-apiserver/capi-clusters.ts';
import { capiSecret, secret } from '#lab/kube-apiserver/secrets.ts';
import { controlPlaneNode } from '#lab/kube-apiserver/nodes.ts';
import { etcdPod } from '#lab/kube-apiserver/etcd-pods.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';
import { allowingStandIn } from '../helpers/allowing-stand-in.ts';
import { get } from '../helpers/http.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';

// Issue 10, hole 3: no output quotes the content of a Secret, a kubeconfig or a key. Reproduced before
// the fix: a malformed `<cluster>-kubeconfig` put its `token:` and the start of `client-key-data` into
// /healthz/etcd and the log, through the YAML parser's source snippet. Here malformed secrets carry
// planted values, and every output is searched for them: /healthz/etcd as JSON and text, /members,
// /alarms, the status page and its fragment, /metrics, and every log line.

const NAMESPACE = 'default';
const NAME = 'leaky';
let api: FakeKubeApiServer;
let etcdCa: TestCa;
let dir: string;
let service: RunningService | null = null;

beforeAll(async () => {
  api = await FakeKubeApiServer.start({ clusterApi: true });
  etcdCa = await makeCa('workload etcd CA');
  // The Cluster whose spec.controlPlaneEndpoint the kubeconfig Secret must name (the stand-in itself).
  api.upsertCapiCluster(capiCluster(NAMESPACE, NAME, { controlPlaneEndpoint: { host: '127.0.0.1', port: api.port } }));
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-secret-leaks-'));
  api.upsertNode(controlPlaneNode('cp-1'));
  api.upsertPod(etcdPod('cp-1'));
});

afterAll(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await service?.close();
  service = null;
});

function planted(what: string): string {
  return `PLANTED-${what}-${randomBytes(6).toString('hex')}`;
}

/** A well-formed kubeconfig for the stand-in whose text is then broken by `mangle`. */
function kubeconfigText(mangle: (text: string) => string): string {
  return mangle(api.kubeconfig({ auth: 'cert' }));
}

/** Every output of the service, concatenated: the routes (open: no token file) and the log. */
async function everything(s: RunningService): Promise<string> {
  const outputs: string[] = [];
  for (const url of ['/healthz/etcd', '/healthz/etcd?verbose', '/members', '/alarms', '/', '/status/fragment', '/metrics']) {
    const response = await get(`${s.url}${url}`, { headers: { accept: url === '/' || url === '/status/fragment' ? 'text/html' : '*/*' } });
    outputs.push(`${url} ${response.status}\n${response.text}`);
  }
  return `${outputs.join('\n')}\n${s.logs.raw}`;
}

async function capi(secrets: Record<string, Record<string, string>>): Promise<RunningService> {
  for (const [suffix, data] of Object.entries(secrets)) api.upsertSecret(capiSecret(NAMESPACE, NAME, suffix, data));
  const managementDir = mkdtempSync(join(dir, 'management-'));
  service = await startService({
    ETCD_PROBE_CAPI_CLUSTER: `${NAMESPACE}/${NAME}`,
    ...allowingStandIn(),
    ETCD_PROBE_MANAGEMENT_KUBECONFIG: await api.writeKubeconfig(managementDir, { auth: 'cert' }),
    ETCD_PROBE_TIMEOUT: '1000ms',
    ETCD_PROBE_CACHE_TTL: '0s',
  });
  return service;
}

function expectNoneOf(output: string, values: readonly string[]): void {
  for (const value of values) {
    expect(output, `output quotes ${value}`).not.toContain(value);
    // Nor a telling part of it (the parser snippets cut lines short).
    expect(output).not.toContain(value.slice(0, 16));
  }
}

describe('malformed secrets with planted values', () => {
  it('a kubeconfig whose YAML breaks right after its token and key data: reported by line, quoted nowhere', async () => {
    const token = planted('TOKEN');
    const key = planted('KEYDATA');
    const s = await capi({
      kubeconfig: { value: kubeconfigText((t) => t.replace(/client-key-data: \S+/, `client-key-data: ${key}\n      token: ${token}\n     broken: [here`)) },
      etcd: { 'tls.crt': etcdCa.cert, 'tls.key': etcdCa.key },
    });
    const output = await everything(s);
    expectNoneOf(output, [token, key]);
    expect(output).toMatch(/secret default\/leaky-kubeconfig: not valid YAML at line \d+, column \d+/);
  });

  it('a kubeconfig of the wrong shape, with values in refused and mistyped fields', async () => {
    const command = planted('EXEC');
    const tokenValue = planted('TOKENMAP');
    const config = parse(api.kubeconfig({ auth: 'token' })) as { users: { user: Record<string, unknown> }[] };
    config.users[0]!.user = { token: { nested: tokenValue }, exec: { command } };
    const s = await capi({ kubeconfig: { value: stringify(config) }, etcd: { 'tls.crt': etcdCa.cert, 'tls.key': etcdCa.key } });
    const output = await everything(s);
    expectNoneOf(output, [command, tokenValue]);
    expect(output).toMatch(/secret default\/leaky-kubeconfig: users\[0\]\.user\.exec \(line \d+\) is not allowed/);
  });

  it('an etcd CA secret with a certificate and key that are not PEM', async () => {
    const cert = planted('CACERT');
    const key = planted('CAKEY');
    const s = await capi({
      kubeconfig: { value: api.kubeconfig({ auth: 'cert' }) },
      etcd: { 'tls.crt': `-----BEGIN CERTIFICATE-----\n${cert}\n-----END CERTIFICATE-----\n`, 'tls.key': `-----BEGIN EC PRIVATE KEY-----\n${key}\n-----END EC PRIVATE KEY-----\n` },
    });
    const output = await everything(s);
    expectNoneOf(output, [cert, key]);
    expect(output).toContain('secret default/leaky-etcd: tls.crt is not a PEM certificate');
  });

  it('an etcd CA whose key is not PEM, and an external-etcd client secret with a broken key', async () => {
    const caKey = planted('MINTKEY');
    const s = await capi({
      kubeconfig: { value: api.kubeconfig({ auth: 'cert' }) },
      etcd: { 'tls.crt': etcdCa.cert, 'tls.key': `-----BEGIN PRIVATE KEY-----\n${caKey}\n-----END PRIVATE KEY-----\n` },
    });
    const first = await everything(s);
    expectNoneOf(first, [caKey]);
    expect(first).toContain('secret default/leaky-etcd: tls.key is not a PEM private key');
    await s.close();

    const clientKey = planted('CLIENTKEY');
    api.removeSecret(NAMESPACE, `${NAME}-etcd`);
    const external = await capi({
      etcd: { 'tls.crt': etcdCa.cert },
      'apiserver-etcd-client': { 'tls.crt': etcdCa.cert, 'tls.key': `not a key at all: ${clientKey}` },
    });
    const second = await everything(external);
    expectNoneOf(second, [clientKey]);
    expect(second).toContain('secret default/leaky-apiserver-etcd-client: tls.key is not a PEM private key');
  });

  it('a TLS secret in kubeconfig mode (ETCD_PROBE_TLS_SECRET) with planted garbage', async () => {
    const ca = planted('TLSCA');
    const key = planted('TLSKEY');
    api.upsertSecret(secret('kube-system', 'etcd-client', { 'ca.crt': etcdCa.cert, 'tls.crt': `-----BEGIN CERTIFICATE-----\n${ca}\n-----END CERTIFICATE-----\n`, 'tls.key': key }));
    const kubeconfigDir = mkdtempSync(join(dir, 'workload-'));
    service = await startService({
      ETCD_PROBE_KUBECONFIG: await api.writeKubeconfig(kubeconfigDir, { auth: 'cert' }),
      ETCD_PROBE_TLS_SECRET: 'kube-system/etcd-client',
      ETCD_PROBE_TIMEOUT: '1000ms',
      ETCD_PROBE_CACHE_TTL: '0s',
    });
    const output = await everything(service);
    expectNoneOf(output, [ca, key]);
    expect(output).toContain('secret kube-system/etcd-client: tls.crt is not a PEM certificate');
  });

  it("the operator's kubeconfig file with a YAML mistake next to its token: the start fails naming the setting and line only", async () => {
    const token = planted('FILETOKEN');
    const path = join(dir, 'broken-kubeconfig');
    writeFileSync(path, kubeconfigText((t) => t.replace(/client-key-data: \S+/, `token: ${token}\n     broken: [here`)));
    const error = await startService({ ETCD_PROBE_KUBECONFIG: path }).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(new RegExp(`^ETCD_PROBE_KUBECONFIG: kubeconfig ${path}: not valid YAML at line \\d+, column \\d+`));
    expectNoneOf(error?.message ?? '', [token]);
  });
});
