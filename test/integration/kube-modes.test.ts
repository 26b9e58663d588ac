import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCa } from '../fixtures/certs.ts';
import { EtcdCluster } from '../fixtures/etcd-cluster.ts';
import { FakeKubeApiServer } from '../fixtures/fake-kube-apiserver/server.ts';
import { controlPlaneNode } from '../fixtures/fake-kube-apiserver/nodes.ts';
import { etcdPod } from '../fixtures/fake-kube-apiserver/etcd-pods.ts';
import { capiCluster } from '../fixtures/fake-kube-apiserver/capi-clusters.ts';
import { capiSecret } from '../fixtures/fake-kube-apiserver/secrets.ts';
import { capiManagementRules, workloadProbeRules } from '../fixtures/fake-kube-apiserver/auth.ts';
import { allowingStandIn } from '../helpers/allowing-stand-in.ts';
import { clientCertExpiries, notAfterSeconds } from '../helpers/client-cert-expiry.ts';
import { eventually, get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startFleet } from '../helpers/start-fleet.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { testTempDir } from '../helpers/temp-dir.ts';

// Kubernetes and Cluster API modes against the kube-apiserver STAND-IN (test/fixtures/fake-kube-apiserver:
// no real API server can run here), whose port-forwards lead to a real 3-member etcd cluster with TLS and
// --client-cert-auth. The service drives the stand-in with the real @kubernetes/client-node.

interface Health {
  status: string;
  mode: string;
  kubernetes: { cluster: string; transport: string; apiError: { code: string; layer: string } | null } | null;
  reasons: { code: string; severity: string; member: { name: string } | null; message: string }[];
}
interface Members {
  endpoints: { node: string | null; error: { code: string; layer: string; message: string } | null }[];
  members: { name: string; healthy: boolean; error: { code: string; layer: string; message: string } | null; node: { name: string; ready: boolean } | null; pod: { name: string; ready: boolean } | null }[];
}

const TIMEOUT_MS = 1000;
let cluster: EtcdCluster;
let api: FakeKubeApiServer;
let dir: string;
let service: RunningService | null = null;

function backendOf(index: number): { host: string; port: number } {
  const url = new URL(cluster.members[index]!.clientUrl);
  return { host: url.hostname, port: Number(url.port) };
}

/**
 * The workload as kubeadm leaves it: a control-plane node per member, named like it, with its etcd pod.
 * Every member listens on 127.0.0.1 here, so that is each node's InternalIP (direct mode dials only a
 * node's own addresses).
 */
function seedWorkload(): void {
  cluster.members.forEach((m, i) => {
    api.upsertNode(controlPlaneNode(m.name, { createdAt: new Date(Date.now() - 3_600_000), internalIP: new URL(m.clientUrl).hostname }));
    api.upsertPod(etcdPod(m.name, { backend: backendOf(i), advertiseClientUrl: m.clientUrl }));
  });
}

async function kubeconfigService(extra: Record<string, string> = {}): Promise<RunningService> {
  const pki = cluster.pki!;
  service = await startService({
    ETCD_PROBE_KUBECONFIG: await api.writeKubeconfig(dir, { auth: 'cert' }),
    ETCD_PROBE_CACERT: pki.caFile,
    ETCD_PROBE_CERT: pki.clientCertFile,
    ETCD_PROBE_KEY: pki.clientKeyFile,
    ETCD_PROBE_TIMEOUT: `${TIMEOUT_MS}ms`,
    ETCD_PROBE_CACHE_TTL: '0s',
    ...extra,
  });
  return service;
}

async function health(s: RunningService, query = ''): Promise<{ status: number; body: Health }> {
  const response = await get<Health>(`${s.url}/healthz/etcd${query}`);
  if (process.env.DEBUG_KUBE) console.error(JSON.stringify(response.body.reasons.map((r) => r.message)));
  expect(checkResponse('GET', '/healthz/etcd', response)).toEqual([]);
  return response;
}

async function members(s: RunningService): Promise<Members> {
  const response = await get<Members>(`${s.url}/members`);
  expect(checkResponse('GET', '/members', response)).toEqual([]);
  return response.body;
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3, tls: true });
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-kube-'));
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('kubeconfig mode through port-forward', () => {
  beforeAll(async () => {
    api = await FakeKubeApiServer.start();
  });
  afterAll(async () => {
    await api.close();
  });
  afterEach(async () => {
    await service?.close();
    service = null;
    seedWorkload();
    for (const m of cluster.members) api.setPortForwardFailure('kube-system', `etcd-${m.name}`, null);
  });

  it('is healthy, names mode and cluster, and maps every member to its node and pod', async () => {
    seedWorkload();
    const s = await kubeconfigService();
    const { status, body } = await health(s);
    expect(body.reasons).toEqual([]);
    expect(status).toBe(200);
    expect(body.status).toBe('healthy');
    expect(body.mode).toBe('kubeconfig');
    expect(body.kubernetes).toEqual({ cluster: api.url, transport: 'port-forward', apiError: null });
    const listed = await members(s);
    const byName = [...listed.members].sort((a, b) => a.name.localeCompare(b.name));
    expect(byName.map((m) => [m.name, m.healthy, m.node?.name, m.node?.ready, m.pod?.name, m.pod?.ready])).toEqual(
      cluster.members.map((m) => [m.name, true, m.name, true, `etcd-${m.name}`, true]),
    );
    // Every member was reached through its own tunnel, and the stand-in saw the port-forwards.
    expect(api.openTunnels).toBeGreaterThanOrEqual(3);
    expect(api.requests.some((r) => r.path === '/api/v1/namespaces/kube-system/pods/etcd-m2/portforward')).toBe(true);
  });

  it.each([
    ['refuse', 'PORT_FORWARD_FAILED', 'port-forward', /could not open the port-forward to kube-system\/etcd-m3 on node m3 \(HTTP 500: error dialing backend/],
    // The kubelet could not connect to the pod's port: nothing listens there, which is etcd's layer.
    ['error-channel', 'CONNECTION_REFUSED', 'etcd', /through the port-forward, nothing listens on etcd-m3:2379 on node m3/],
  ] as const)("a node's tunnel failing (%s) is degraded, with code %s at layer %s", async (failure, code, layer, message) => {
    seedWorkload();
    api.setPortForwardFailure('kube-system', 'etcd-m3', failure);
    const s = await kubeconfigService();
    const { status, body } = await health(s);
    expect(status).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.reasons.map((r) => [r.code, r.member?.name])).toEqual([['MEMBER_UNREACHABLE', 'm3']]);
    const m3 = (await members(s)).members.find((m) => m.name === 'm3');
    expect(m3?.error?.layer).toBe(layer);
    expect(m3?.error?.code).toBe(code);
    expect(m3?.error?.message).toMatch(message);
    expect((await health(s, '?policy=strict')).status).toBe(503);
  });

  it('reports a stopped API server once, as KUBE_API_UNREACHABLE, unhealthy, within the timeout', async () => {
    seedWorkload();
    const s = await kubeconfigService();
    expect((await health(s)).body.status).toBe('healthy');
    await api.stop();
    try {
      const started = performance.now();
      const { status, body } = await health(s);
      const elapsed = performance.now() - started;
      expect(status).toBe(503);
      expect(body.status).toBe('unhealthy');
      expect(body.reasons.map((r) => r.code)).toEqual(['KUBE_API_UNREACHABLE']);
      expect(body.kubernetes?.apiError?.layer).toBe('kube-api');
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 500);
      // The last known members are kept and shown with the kube-api layer, not forgotten.
      const listed = await members(s);
      expect(listed.members.map((m) => m.name).sort()).toEqual(['m1', 'm2', 'm3']);
      expect(listed.members.every((m) => m.error?.layer === 'kube-api')).toBe(true);
    } finally {
      await api.start();
    }
    await expect.poll(async () => (await health(s)).body.status, { timeout: 10_000 }).toBe('healthy');
  });

  it('answers within the timeout when the API server hangs, and says why', async () => {
    seedWorkload();
    const s = await kubeconfigService();
    expect((await health(s)).body.status).toBe('healthy');
    await api.stop();
    await api.start();
    api.pause();
    try {
      const started = performance.now();
      const { status, body } = await health(s);
      const elapsed = performance.now() - started;
      expect(status).toBe(503);
      expect(body.reasons.map((r) => r.code)).toEqual(['KUBE_API_UNREACHABLE']);
      expect(body.reasons[0]?.message).toMatch(/no answer from the API server .* within 1000ms/);
      // Discovery runs beside the probes of the last known members, so a hung API costs one deadline.
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 500);
    } finally {
      api.resume();
    }
  });

  it('reports a member without a node and a node without a member (past the grace period only)', async () => {
    seedWorkload();
    api.removeNode('m3');
    api.upsertNode(controlPlaneNode('cp-new', { createdAt: new Date(Date.now() - 600_000) }));
    api.upsertNode(controlPlaneNode('cp-joining', { createdAt: new Date(Date.now() - 10_000) }));
    try {
      const s = await kubeconfigService();
      const { body } = await health(s);
      expect(body.status).toBe('degraded');
      expect(body.reasons.map((r) => r.code).sort()).toEqual(['MEMBER_WITHOUT_NODE', 'NODE_WITHOUT_MEMBER']);
      expect(body.reasons.find((r) => r.code === 'NODE_WITHOUT_MEMBER')?.message).toContain('cp-new');
      expect(body.reasons.find((r) => r.code === 'MEMBER_WITHOUT_NODE')?.member?.name).toBe('m3');
    } finally {
      api.removeNode('cp-new');
      api.removeNode('cp-joining');
    }
  });

  it('probes at most ETCD_PROBE_MAX_MEMBERS nodes and never a node whose name is not a DNS subdomain (issue 25, hole 2)', async () => {
    seedWorkload();
    const extra = Array.from({ length: 40 }, (_, i) => `zz-extra-${String(i).padStart(2, '0')}`);
    const bad = `Bad_Node_${'x'.repeat(300)}`;
    for (const name of [...extra, bad]) api.upsertNode(controlPlaneNode(name, { createdAt: new Date(Date.now() - 10_000) }));
    try {
      const s = await kubeconfigService({ ETCD_PROBE_MAX_MEMBERS: '5' });
      const { body } = await health(s);
      expect(body.status).toBe('degraded');
      expect(body.reasons.map((r) => r.code).sort()).toEqual(['INVALID_NODE_NAME', 'TOO_MANY_MEMBERS']);
      expect(body.reasons.find((r) => r.code === 'TOO_MANY_MEMBERS')?.message).toBe('the API lists 43 control-plane nodes; the first 5 by name are probed, 38 are not');
      expect(JSON.stringify(body)).not.toContain('Bad_Node');
      // The three real members (m1..m3 sort first) are still probed and healthy.
      expect((await members(s)).members.filter((m) => m.healthy)).toHaveLength(3);
    } finally {
      for (const name of [...extra, bad]) api.removeNode(name);
    }
  });

  it('reports an etcd pod that is not Ready', async () => {
    seedWorkload();
    api.setPodReady('kube-system', 'etcd-m2', false);
    const s = await kubeconfigService();
    const { status, body } = await health(s);
    expect(status).toBe(200);
    expect(body.reasons.map((r) => [r.code, r.member?.name])).toEqual([['ETCD_POD_NOT_READY', 'm2']]);
    const m2 = (await members(s)).members.find((m) => m.name === 'm2');
    expect(m2?.pod).toEqual({ name: 'etcd-m2', ready: false });
  });

  it('works with exactly the documented RBAC, etcd TLS from a Secret, and says which permission is missing', async () => {
    seedWorkload();
    const pki = cluster.pki!;
    const tlsSecret = { namespace: 'kube-system', name: 'etcd-probe-client' };
    api.upsertSecret(tlsSecret.namespace, tlsSecret.name, {
      'ca.crt': readFileSync(pki.caFile),
      'tls.crt': readFileSync(pki.clientCertFile),
      'tls.key': readFileSync(pki.clientKeyFile),
    });
    const token = api.addUser('etcd-probe', workloadProbeRules({ tlsSecret }));
    service = await startService({
      ETCD_PROBE_KUBECONFIG: await api.writeKubeconfig(dir, { auth: 'token', token }),
      ETCD_PROBE_TLS_SECRET: `${tlsSecret.namespace}/${tlsSecret.name}`,
      ETCD_PROBE_TIMEOUT: `${TIMEOUT_MS}ms`,
      ETCD_PROBE_CACHE_TTL: '0s',
    });
    const { status, body } = await health(service);
    expect(body.reasons).toEqual([]);
    expect(status).toBe(200);
    expect(api.requests.filter((r) => r.user === 'etcd-probe' && r.status === 403)).toEqual([]);
    // No certificate file is given: the expiry exported is the one of the certificate read from the Secret.
    expect(clientCertExpiries((await get(`${service.url}/metrics`)).text)).toEqual({ '': notAfterSeconds(readFileSync(pki.clientCertFile)) });
    await service.close();

    // Without pods/portforward the API lists fine but refuses every tunnel: said once per member, at layer kube-api.
    const limited = api.addUser('no-portforward', workloadProbeRules({ tlsSecret, portForward: false }));
    service = await startService({
      ETCD_PROBE_KUBECONFIG: await api.writeKubeconfig(dir, { auth: 'token', token: limited }),
      ETCD_PROBE_TLS_SECRET: `${tlsSecret.namespace}/${tlsSecret.name}`,
      ETCD_PROBE_TIMEOUT: `${TIMEOUT_MS}ms`,
      ETCD_PROBE_CACHE_TTL: '0s',
    });
    const refused = await health(service);
    expect(refused.status).toBe(503);
    // No member answered, so no membership is known: the endpoints carry the errors.
    const { endpoints } = await members(service);
    expect(endpoints.map((e) => [e.node, e.error?.code, e.error?.layer])).toEqual(
      ['m1', 'm2', 'm3'].map((node) => [node, 'PORT_FORWARD_FAILED', 'kube-api']),
    );
    expect(endpoints[0]?.error?.message).toMatch(/HTTP 403.*"create" on pods\/portforward in kube-system/);
    expect(refused.body.reasons.map((r) => r.code)).toEqual(['NO_MEMBER_REACHABLE']);
  });

  it("a fleet's Secret-TLS cluster exports the client-certificate expiry of the certificate in its Secret", async () => {
    // One cluster runtime (src/cluster/cluster-runtime.ts) for both modes: before it, a fleet's clusters
    // exported the expiry of certificate files only, never of credentials their source read itself.
    seedWorkload();
    const pki = cluster.pki!;
    const tlsSecret = { namespace: 'kube-system', name: 'etcd-probe-fleet-client' };
    api.upsertSecret(tlsSecret.namespace, tlsSecret.name, {
      'ca.crt': readFileSync(pki.caFile),
      'tls.crt': readFileSync(pki.clientCertFile),
      'tls.key': readFileSync(pki.clientKeyFile),
    });
    const token = api.addUser('etcd-probe-fleet', workloadProbeRules({ tlsSecret }));
    const kubeconfig = await api.writeKubeconfig(dir, { auth: 'token', token });
    const clustersFile = join(dir, 'clusters.yaml');
    writeFileSync(clustersFile, `clusters:\n  - name: workload\n    kubeconfig: ${kubeconfig}\n    tlsSecret: ${tlsSecret.namespace}/${tlsSecret.name}\n`);
    const fleet = await startFleet({ ETCD_PROBE_CLUSTERS_FILE: clustersFile, ETCD_PROBE_TIMEOUT: `${TIMEOUT_MS}ms`, ETCD_PROBE_FLEET_REFRESH: '1s', ETCD_PROBE_CACHE_TTL: '500ms' });
    try {
      const rows = await eventually(
        async () => (await get(`${fleet.url}/clusters`)).body.clusters as { name: string; status: string | null }[],
        (r) => r[0]?.status === 'healthy',
        20_000,
        200,
      );
      expect(rows.map((c) => [c.name, c.status])).toEqual([['workload', 'healthy']]);
      expect(clientCertExpiries((await get(`${fleet.url}/metrics`)).text)).toEqual({ workload: notAfterSeconds(readFileSync(pki.clientCertFile)) });
      expect(api.requests.filter((r) => r.user === 'etcd-probe-fleet' && r.path === `/api/v1/namespaces/${tlsSecret.namespace}/secrets/${tlsSecret.name}`).length).toBeGreaterThan(0);
    } finally {
      await fleet.close();
    }
  });

  it('in-cluster: the service account token and the API service address; direct by default, with no portforward right', async () => {
    seedWorkload();
    const pki = cluster.pki!;
    const token = api.addUser('system:serviceaccount:monitoring:etcd-probe', workloadProbeRules({ portForward: false }));
    const layout = await api.writeInCluster(testTempDir('etcd-probe-pod-'), { token, namespace: 'monitoring' });
    const tunnelsBefore = api.tunnelsOpened;
    service = await startService(
      {
        ...layout.env,
        ETCD_PROBE_KUBECONFIG: 'in-cluster',
        ETCD_PROBE_CACERT: pki.caFile,
        ETCD_PROBE_CERT: pki.clientCertFile,
        ETCD_PROBE_KEY: pki.clientKeyFile,
        ETCD_PROBE_TIMEOUT: `${TIMEOUT_MS}ms`,
        ETCD_PROBE_CACHE_TTL: '0s',
      },
      { serviceAccountDir: join(layout.pathPrefix, 'var/run/secrets/kubernetes.io/serviceaccount') },
    );
    const { status, body } = await health(service);
    expect(body.reasons).toEqual([]);
    expect(status).toBe(200);
    expect(body.kubernetes?.transport).toBe('direct');
    expect(api.tunnelsOpened).toBe(tunnelsBefore);
    const calls = api.requests.filter((r) => r.user === 'system:serviceaccount:monitoring:etcd-probe');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((r) => r.status === 200)).toBe(true);
  });

  it('direct mode dials the advertised client URLs and never opens a tunnel', async () => {
    seedWorkload();
    const tunnelsBefore = api.tunnelsOpened;
    const s = await kubeconfigService({ ETCD_PROBE_CONNECT: 'direct' });
    const { status, body } = await health(s);
    expect(status).toBe(200);
    expect(body.status).toBe('healthy');
    expect(body.kubernetes?.transport).toBe('direct');
    expect(api.tunnelsOpened).toBe(tunnelsBefore);
  });
});

describe('Cluster API mode', () => {
  const NAMESPACE = 'default';
  const NAME = 'workload-1';

  beforeAll(async () => {
    api = await FakeKubeApiServer.start({ clusterApi: true });
    seedWorkload();
    // The Cluster whose spec.controlPlaneEndpoint the kubeconfig Secret must name (the stand-in itself).
    api.upsertCapiCluster(capiCluster(NAMESPACE, NAME, { controlPlaneEndpoint: { host: '127.0.0.1', port: api.port } }));
  });
  afterAll(async () => {
    await api.close();
  });
  afterEach(async () => {
    await service?.close();
    service = null;
  });

  async function capiService(caCert: string, caKey: string | null, extra: Record<string, Record<string, string>> = {}): Promise<RunningService> {
    // One stand-in plays both clusters: the management cluster's secrets point back at itself. The
    // service's management credentials have exactly the RBAC the README documents for this mode.
    api.upsertSecret(capiSecret(NAMESPACE, NAME, 'kubeconfig', { value: api.kubeconfig({ auth: 'cert' }) }));
    api.upsertSecret(capiSecret(NAMESPACE, NAME, 'etcd', caKey === null ? { 'tls.crt': caCert } : { 'tls.crt': caCert, 'tls.key': caKey }));
    for (const [suffix, data] of Object.entries(extra)) api.upsertSecret(capiSecret(NAMESPACE, NAME, suffix, data));
    const token = api.addUser('etcd-probe-management', capiManagementRules(NAMESPACE, NAME));
    service = await startService({
      ETCD_PROBE_CAPI_CLUSTER: `${NAMESPACE}/${NAME}`,
      ...allowingStandIn(),
      ETCD_PROBE_MANAGEMENT_KUBECONFIG: await api.writeKubeconfig(dir, { auth: 'token', token }),
      ETCD_PROBE_TIMEOUT: `${TIMEOUT_MS}ms`,
      ETCD_PROBE_CACHE_TTL: '0s',
    });
    return service;
  }

  it("mints a client certificate from the <cluster>-etcd CA that real etcd (--client-cert-auth) accepts", async () => {
    const pki = cluster.pki!;
    const s = await capiService(readFileSync(pki.caFile, 'utf8'), readFileSync(pki.caKeyFile, 'utf8'));
    const { status, body } = await health(s);
    expect(body.reasons).toEqual([]);
    expect(status).toBe(200);
    expect(body.mode).toBe('capi');
    expect(body.kubernetes).toEqual({ cluster: `${NAMESPACE}/${NAME}`, transport: 'port-forward', apiError: null });
    expect((await members(s)).members.every((m) => m.healthy)).toBe(true);
    // It read exactly the secrets it needs, and nothing was written anywhere.
    const secretsRead = new Set(api.requests.filter((r) => r.path.includes('/secrets/')).map((r) => r.path));
    expect([...secretsRead].sort()).toEqual([`/api/v1/namespaces/${NAMESPACE}/secrets/${NAME}-etcd`, `/api/v1/namespaces/${NAMESPACE}/secrets/${NAME}-kubeconfig`]);
    expect(api.requests.every((r) => r.method === 'GET')).toBe(true);
    // The CA key crossed the wire once, to mint; the refresh asks for <name>-etcd's metadata only.
    const etcdSecretReads = api.requests.filter((r) => r.path === `/api/v1/namespaces/${NAMESPACE}/secrets/${NAME}-etcd`);
    expect(etcdSecretReads.filter((r) => !r.metadataOnly)).toHaveLength(1);
    expect(etcdSecretReads.filter((r) => r.metadataOnly).length).toBeGreaterThanOrEqual(1);
    // The minted certificate's expiry is exported like a file's: 24 h from now.
    const exported = /^etcd_probe_tls_cert_not_after_seconds\{credentials="etcd-client"\} (\S+)$/m.exec((await get(`${s.url}/metrics`)).text);
    expect(Number(exported?.[1]) * 1000 - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    expect(Number(exported?.[1]) * 1000 - Date.now()).toBeLessThan(24 * 3_600_000);
  });

  it('uses <cluster>-apiserver-etcd-client when the CA key is absent (external etcd)', async () => {
    const pki = cluster.pki!;
    const s = await capiService(readFileSync(pki.caFile, 'utf8'), null, {
      'apiserver-etcd-client': { 'tls.crt': readFileSync(pki.clientCertFile, 'utf8'), 'tls.key': readFileSync(pki.clientKeyFile, 'utf8') },
    });
    const { status, body } = await health(s);
    expect(body.reasons).toEqual([]);
    expect(status).toBe(200);
    expect(api.requests.some((r) => r.path === `/api/v1/namespaces/${NAMESPACE}/secrets/${NAME}-apiserver-etcd-client` && r.status === 200)).toBe(true);
  });

  it('rejects a wrong CA with layer tls, on every member, and never says healthy', async () => {
    const wrong = await makeCa('not the etcd CA');
    const s = await capiService(wrong.cert, wrong.key);
    const { status, body } = await health(s);
    expect(status).toBe(503);
    expect(body.status).toBe('unhealthy');
    const listed = await members(s);
    expect(listed.members.length === 0 || listed.members.every((m) => m.error?.layer === 'tls')).toBe(true);
    expect(body.reasons.map((r) => r.code)).toEqual(['NO_MEMBER_REACHABLE']);
    expect(body.reasons[0]?.message).toMatch(/TLS: etcd's serving certificate is not signed by the configured CA/);
  });
});
