import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCa, type TestCa } from '#lab/certs/pki.ts';
import { capiManagementRules } from '#lab/kube-apiserver/auth.ts';
import { capiCluster } from '#lab/kube-apiserver/capi-clusters.ts';
import { capiSecret } from '#lab/kube-apiserver/secrets.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';
import { allowingStandIn } from '../helpers/allowing-stand-in.ts';
import { get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';

// Issue 10, hole 2: the workload kubeconfig that Cluster API mode reads from `<cluster>-kubeconfig` is
// written by whoever may write Secrets in the Cluster's namespace. Reproduced before the fix: a user
// with `exec` ran its command inside etcd-probe, and `token-file` sent a local file as a bearer token
// to the server the kubeconfig names. Now such a kubeconfig is refused (KUBE_API_REFUSED, naming the
// field), and nothing in it is run or read. The kube-apiserver is the stand-in; no etcd is needed: the
// round fails before it would dial a member.

const NAMESPACE = 'default';
const NAME = 'tenant-cluster';
let api: FakeKubeApiServer;
let etcdCa: TestCa;
let dir: string;
let service: RunningService | null = null;

beforeAll(async () => {
  api = await FakeKubeApiServer.start({ clusterApi: true });
  etcdCa = await makeCa('workload etcd CA');
  // The Cluster whose spec.controlPlaneEndpoint the kubeconfig Secret must name (the stand-in itself).
  api.upsertCapiCluster(capiCluster(NAMESPACE, NAME, { controlPlaneEndpoint: { host: '127.0.0.1', port: api.port } }));
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-secret-kubeconfig-'));
});

afterAll(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await service?.close();
  service = null;
});

/** The stand-in's own kubeconfig (token user), with its user replaced. */
function kubeconfigWithUser(user: Record<string, unknown>): string {
  const config = parse(api.kubeconfig({ auth: 'token' })) as { users: { user: Record<string, unknown> }[] };
  (config.users[0] as { user: Record<string, unknown> }).user = user;
  return stringify(config);
}

async function capiService(kubeconfig: string): Promise<RunningService> {
  api.upsertSecret(capiSecret(NAMESPACE, NAME, 'kubeconfig', { value: kubeconfig }));
  api.upsertSecret(capiSecret(NAMESPACE, NAME, 'etcd', { 'tls.crt': etcdCa.cert, 'tls.key': etcdCa.key }));
  const token = api.addUser('etcd-probe-management', capiManagementRules(NAMESPACE, NAME));
  const managementDir = mkdtempSync(join(dir, 'management-'));
  service = await startService({
    ETCD_PROBE_CAPI_CLUSTER: `${NAMESPACE}/${NAME}`,
    ...allowingStandIn(),
    ETCD_PROBE_MANAGEMENT_KUBECONFIG: await api.writeKubeconfig(managementDir, { auth: 'token', token }),
    ETCD_PROBE_TIMEOUT: '1000ms',
    ETCD_PROBE_CACHE_TTL: '0s',
  });
  return service;
}

interface Health {
  status: string;
  reasons: { code: string; message: string }[];
}

async function refusal(s: RunningService): Promise<string> {
  const response = await get<Health>(`${s.url}/healthz/etcd`);
  expect(checkResponse('GET', '/healthz/etcd', response)).toEqual([]);
  expect(response.status).toBe(503);
  expect(response.body.status).toBe('unhealthy');
  const refused = response.body.reasons.find((r) => r.code === 'KUBE_API_REFUSED');
  expect(refused).toBeDefined();
  return refused!.message;
}

describe('a workload kubeconfig from a Secret', () => {
  it('never runs an exec credential plugin: the command that would leave a trace leaves none', async () => {
    const trace = join(dir, 'exec-ran');
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: api.token } });
    const s = await capiService(
      kubeconfigWithUser({
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', `touch ${trace}; echo '${credential}'`], interactiveMode: 'Never' },
      }),
    );
    const message = await refusal(s);
    expect(message).toMatch(
      /^secret default\/tenant-cluster-kubeconfig: users\[0\]\.user\.exec \(line \d+\) is not allowed in a kubeconfig read from a Secret \(it would run a command\); allowed are server \(https\), certificate-authority-data, client-certificate-data with client-key-data, and token/,
    );
    // A second round, and the status page, do not run it either.
    await get(`${s.url}/healthz/etcd`);
    expect((await get(`${s.url}/`)).status).toBe(200);
    expect(existsSync(trace)).toBe(false);
    // The workload API was never called with any credential the kubeconfig would have produced.
    expect(api.requests.filter((r) => r.user === 'token-admin')).toEqual([]);
  });

  it('never reads a token-file: the local file is not sent to the server the kubeconfig names', async () => {
    const stolen = api.addUser('owner-of-a-local-token', null);
    const tokenFile = join(dir, 'local-token');
    writeFileSync(tokenFile, stolen);
    const s = await capiService(kubeconfigWithUser({ 'token-file': tokenFile }));
    const message = await refusal(s);
    expect(message).toMatch(/^secret default\/tenant-cluster-kubeconfig: users\[0\]\.user\.token-file \(line \d+\) is not allowed in a kubeconfig read from a Secret \(it would read a local file\)/);
    await get(`${s.url}/members`);
    expect(api.requests.filter((r) => r.user === 'owner-of-a-local-token')).toEqual([]);
  });

  it('is used when it carries only what it may: an https server, CA data, and a token or client certificate data', async () => {
    const s = await capiService(api.kubeconfig({ auth: 'cert' }));
    const response = await get<Health>(`${s.url}/healthz/etcd`);
    // The workload API answered (no kube reason); there are no nodes, so no member could be found.
    expect(response.body.reasons.map((r) => r.code)).not.toContain('KUBE_API_REFUSED');
    expect(api.requests.some((r) => r.path === '/api/v1/nodes' && r.user === 'kubernetes-admin' && r.status === 200)).toBe(true);
  });
});
