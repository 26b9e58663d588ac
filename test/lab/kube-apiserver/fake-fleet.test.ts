import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { createServer as createTlsServer, connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigFromSecret } from '../../../src/kube/secret-kubeconfig.ts';
import { mintClientCertificate } from '../../../src/tls/mint-client-certificate.ts';
import { eventually } from '../../helpers/http.ts';
import { capiCluster, setClusterPhase } from '#lab/kube-apiserver/capi-clusters.ts';
import { AGGREGATED_DISCOVERY } from '#lab/kube-apiserver/discovery.ts';
import { FakeFleet } from '#lab/kube-apiserver/fake-fleet.ts';
import { quickCa, quickLeaf } from '#lab/kube-apiserver/quick-pki.ts';
import { rawGet } from '#lab/kube-apiserver/raw-get.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';
import { dialBackend } from '#lab/kube-apiserver/tls-relay.ts';

// The fleet parts of the kube-apiserver stand-in that need no etcd: the quick PKI, Cluster API discovery
// and errors, watches (initial events, resume from a resourceVersion, selector transitions, 410 Expired,
// timeoutSeconds), the Cluster builder's phases, workload clusters' credentials and outages. The fleet
// against real etcd, client-node and kubectl is in test/integration/fake-fleet*.test.ts.

// A backend nobody dials here: set-up never touches the members.
const BACKEND = { members: [{ name: 'm1', clientUrl: 'https://127.0.0.1:1' }], pki: null };
let fleet: FakeFleet;

beforeAll(async () => {
  fleet = await FakeFleet.start({ backends: [BACKEND], clusters: 3, namespaces: ['ns-a', 'ns-b'], labels: (i) => ({ tier: i === 0 ? 'gold' : 'bronze' }) });
});

afterAll(async () => {
  await fleet?.close();
});

interface WatchEvent {
  type: string;
  object: { metadata: { name: string; resourceVersion: string; labels?: Record<string, string> }; code?: number; reason?: string };
}

/** Opens a watch with the admin token and collects its events until stop() or the server ends it. */
function watch(api: FakeKubeApiServer, path: string): { events: WatchEvent[]; ended: Promise<void>; stop: () => void } {
  const events: WatchEvent[] = [];
  let stop = () => {};
  const ended = new Promise<void>((resolve, reject) => {
    const req = request(new URL(path, api.url), { ca: api.caPem, agent: false, headers: { Authorization: `Bearer ${api.token}` } }, (res) => {
      let buffer = '';
      res.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) if (line) events.push(JSON.parse(line) as WatchEvent);
      });
      res.on('end', () => resolve());
      res.on('error', () => resolve());
    });
    req.on('error', (error) => (error.message.includes('aborted') ? resolve() : reject(error)));
    req.end();
    stop = () => req.destroy();
  });
  return { events, ended, stop };
}

describe('quick PKI', () => {
  it('makes a CA and leaves that OpenSSL verifies, and that etcd-probe mints client certificates from', async () => {
    const ca = quickCa('etcd-ca test');
    const leaf = quickLeaf(ca, { commonName: 'etcd', server: true, client: true, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
    const caCert = new X509Certificate(ca.cert);
    const leafCert = new X509Certificate(leaf.cert);
    expect(caCert.ca).toBe(true);
    expect(leafCert.ca).toBe(false);
    expect(leafCert.checkIssued(caCert) && leafCert.verify(caCert.publicKey)).toBe(true);
    expect(leafCert.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    expect(leafCert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    expect(quickLeaf(quickCa('other'), { commonName: 'x', client: true }).cert).not.toContain(leaf.cert);

    const minted = await mintClientCertificate({ caCert: Buffer.from(ca.cert), caKey: Buffer.from(ca.key), commonName: 'etcd-probe', now: Date.now() });
    const server = createTlsServer({ cert: leaf.cert, key: leaf.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true }, (socket) => socket.end(String(socket.getPeerCertificate().subject.CN)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', ca: ca.cert, cert: minted.cert, key: minted.key, servername: 'localhost' });
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toBe('etcd-probe');
    } finally {
      server.close();
    }
  });
});

describe('Cluster API in the management cluster', () => {
  it('is in discovery, aggregated and legacy; a stand-in without clusterApi lists no groups', async () => {
    const token = fleet.api.token;
    const aggregated = await fetchJson(fleet.api, '/apis', AGGREGATED_DISCOVERY);
    expect(aggregated.items).toEqual([
      expect.objectContaining({
        metadata: { name: 'cluster.x-k8s.io', creationTimestamp: null },
        versions: [expect.objectContaining({ version: 'v1beta1', resources: [expect.objectContaining({ resource: 'clusters', scope: 'Namespaced', shortNames: ['cl'], verbs: ['get', 'list', 'watch'] })] })],
      }),
    ]);
    const legacy = await rawGet(fleet.api.url, '/apis', { caPem: fleet.api.caPem, token });
    expect(legacy.body.groups).toEqual([{ name: 'cluster.x-k8s.io', versions: [{ groupVersion: 'cluster.x-k8s.io/v1beta1', version: 'v1beta1' }], preferredVersion: { groupVersion: 'cluster.x-k8s.io/v1beta1', version: 'v1beta1' } }]);
    const resources = await rawGet(fleet.api.url, '/apis/cluster.x-k8s.io/v1beta1', { caPem: fleet.api.caPem, token });
    expect(resources.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'cluster.x-k8s.io/v1beta1', resources: [{ name: 'clusters', kind: 'Cluster', namespaced: true }] });

    const plain = await FakeKubeApiServer.start();
    try {
      expect((await rawGet(plain.url, '/apis', { caPem: plain.caPem, token: plain.token })).body.groups).toEqual([]);
      expect((await rawGet(plain.url, '/apis/cluster.x-k8s.io/v1beta1/clusters', { caPem: plain.caPem, token: plain.token })).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('words Forbidden and NotFound with the group, as kube-apiserver does', async () => {
    const token = fleet.api.addUser('nobody', []);
    const forbidden = await rawGet(fleet.api.url, '/apis/cluster.x-k8s.io/v1beta1/clusters', { caPem: fleet.api.caPem, token });
    expect(forbidden.body).toMatchObject({
      code: 403,
      message: 'clusters.cluster.x-k8s.io is forbidden: User "nobody" cannot list resource "clusters" in API group "cluster.x-k8s.io" at the cluster scope',
      details: { group: 'cluster.x-k8s.io', kind: 'clusters' },
    });
    const missing = await rawGet(fleet.api.url, '/apis/cluster.x-k8s.io/v1beta1/namespaces/ns-a/clusters/nope', { caPem: fleet.api.caPem, token: fleet.api.token });
    expect(missing.body).toMatchObject({ code: 404, reason: 'NotFound', message: 'clusters.cluster.x-k8s.io "nope" not found' });
  });

  it('builds Clusters through their phases with the status fields and conditions of the controllers', () => {
    const cluster = capiCluster('ns', 'c', { phase: 'Pending' });
    const status = () => cluster.status as { phase: string; infrastructureReady: boolean; controlPlaneReady: boolean; failureMessage?: string; conditions: { type: string; status: string; reason?: string }[] };
    expect(status()).toMatchObject({ phase: 'Pending', infrastructureReady: false, controlPlaneReady: false });
    expect(status().conditions.map((c) => `${c.type}=${c.status}:${c.reason}`)).toEqual([
      'Ready=False:WaitingForInfrastructure',
      'ControlPlaneInitialized=False:WaitingForControlPlaneProviderInitialized',
      'ControlPlaneReady=False:WaitingForControlPlane',
      'InfrastructureReady=False:WaitingForInfrastructure',
    ]);
    expect(cluster.spec).toMatchObject({ controlPlaneEndpoint: { host: '', port: 0 } });
    setClusterPhase(cluster, 'Provisioned', { controlPlaneReady: false, controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } });
    expect(status()).toMatchObject({ phase: 'Provisioned', infrastructureReady: true, controlPlaneReady: false });
    expect(status().conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ControlPlaneComponentsUnhealthy' });
    expect(cluster.spec).toMatchObject({ controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } });
    setClusterPhase(cluster, 'Failed', { failureMessage: 'quota exceeded' });
    expect(status()).toMatchObject({ phase: 'Failed', failureMessage: 'quota exceeded' });
    expect(capiCluster('ns', 'd', { phase: 'Deleting' }).metadata).toMatchObject({ deletionTimestamp: expect.any(String), finalizers: ['cluster.cluster.x-k8s.io'] });
  });
});

describe('watches', () => {
  it('send the current objects first, then changes; an object leaving the selector is DELETED, one entering it ADDED', async () => {
    const w = watch(fleet.api, '/apis/cluster.x-k8s.io/v1beta1/clusters?watch=true&labelSelector=tier%3Dgold');
    try {
      await eventually(async () => w.events.length, (n) => n === 1, 5000, 10);
      fleet.api.updateCapiCluster('ns-b', 'cluster-002', (c) => (c.metadata.labels = { tier: 'gold' }));
      fleet.api.updateCapiCluster('ns-a', 'cluster-001', (c) => (c.metadata.labels = { tier: 'bronze' }));
      fleet.pause('ns-b', 'cluster-002');
      fleet.pause('ns-a', 'cluster-003');
      await eventually(async () => w.events.length, (n) => n >= 4, 5000, 10);
      expect(w.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED cluster-001', 'ADDED cluster-002', 'DELETED cluster-001', 'MODIFIED cluster-002']);
    } finally {
      w.stop();
      fleet.api.updateCapiCluster('ns-b', 'cluster-002', (c) => (c.metadata.labels = { tier: 'bronze' }));
      fleet.api.updateCapiCluster('ns-a', 'cluster-001', (c) => (c.metadata.labels = { tier: 'gold' }));
      fleet.pause('ns-b', 'cluster-002', false);
      fleet.pause('ns-a', 'cluster-003', false);
    }
  });

  it('resume after a resourceVersion in one namespace, end at timeoutSeconds, and answer 410 Expired once the log has moved on', async () => {
    const list = await rawGet(fleet.api.url, '/apis/cluster.x-k8s.io/v1beta1/namespaces/ns-a/clusters', { caPem: fleet.api.caPem, token: fleet.api.token });
    const from = list.body.metadata.resourceVersion as string;
    fleet.setPhase('ns-b', 'cluster-002', 'Failed');
    fleet.setPhase('ns-a', 'cluster-003', 'Provisioning');
    const w = watch(fleet.api, `/apis/cluster.x-k8s.io/v1beta1/namespaces/ns-a/clusters?watch=true&resourceVersion=${from}&timeoutSeconds=1`);
    await w.ended;
    expect(w.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['MODIFIED cluster-003']);
    expect(Number(w.events[0]?.object.metadata.resourceVersion)).toBeGreaterThan(Number(from));
    fleet.setPhase('ns-a', 'cluster-003', 'Provisioned');
    fleet.setPhase('ns-b', 'cluster-002', 'Provisioned');

    for (let i = 0; i < 1300; i++) fleet.api.upsertSecret('noise', `s-${i}`, { n: String(i) });
    const old = watch(fleet.api, `/apis/cluster.x-k8s.io/v1beta1/clusters?watch=true&resourceVersion=${from}`);
    await old.ended;
    expect(old.events).toEqual([{ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) }]);
    expect(fleet.api.openWatches).toBe(0);
  });
});

describe('workload clusters', () => {
  it('have kubeconfigs that pass the Secret restrictions, with a certificate or (auth: token) a token, at their own path', async () => {
    const [one] = fleet.clusters;
    const kc = kubeconfigFromSecret(one!.workload.kubeconfig(), 'test');
    expect(kc.getCurrentCluster()?.server).toBe(`${fleet.api.url}/workloads/ns-a/cluster-001`);
    expect(kc.getCurrentUser()?.certData).toBeTruthy();
    const tokens = await FakeFleet.start({ backends: [BACKEND], clusters: 1, auth: 'token' });
    try {
      const user = kubeconfigFromSecret(tokens.clusters[0]!.workload.kubeconfig(), 'test').getCurrentUser();
      expect(user?.token).toBe(tokens.clusters[0]!.workload.adminToken);
      expect(user?.certData).toBeUndefined();
    } finally {
      await tokens.close();
    }
  });

  it("refuse another workload's token and the management admin's, hang and reset on demand", async () => {
    const [one, two] = fleet.clusters;
    const path = (c: typeof one) => `${c!.workload.prefix}/api/v1/nodes`;
    expect((await rawGet(fleet.api.url, path(one), { caPem: fleet.api.caPem, token: one!.workload.adminToken })).status).toBe(200);
    expect((await rawGet(fleet.api.url, path(one), { caPem: fleet.api.caPem, token: two!.workload.adminToken })).status).toBe(401);
    expect((await rawGet(fleet.api.url, path(one), { caPem: fleet.api.caPem, cert: fleet.api.clientCert })).status).toBe(401);
    expect((await rawGet(fleet.api.url, '/api/v1/nodes', { caPem: fleet.api.caPem, cert: one!.workload.adminCert! })).status).toBe(401);

    one!.workload.setOutage('hang');
    const held = rawGet(fleet.api.url, path(one), { caPem: fleet.api.caPem, token: one!.workload.adminToken });
    await eventually(async () => fleet.api.openConnections, (n) => n >= 1, 5000, 10);
    expect((await rawGet(fleet.api.url, path(two), { caPem: fleet.api.caPem, token: two!.workload.adminToken })).status).toBe(200);
    one!.workload.setOutage(null);
    expect((await held).status).toBe(200);
    one!.workload.setOutage('reset');
    await expect(rawGet(fleet.api.url, path(one), { caPem: fleet.api.caPem, token: one!.workload.adminToken })).rejects.toThrow(/socket hang up|ECONNRESET/);
    one!.workload.setOutage(null);
  });

  it("dial the member before any TLS, so a member that is down is the kubelet's dial error", async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const ca = quickCa('x');
    const leaf = quickLeaf(ca, { commonName: 'etcd', server: true });
    const socket = dialBackend({ host: '127.0.0.1', port, tls: { serving: () => ({ cert: leaf.cert, key: leaf.key, ca: ca.cert }), upstream: null } });
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => socket.once('error', resolve));
    expect(error.code).toBe('ECONNREFUSED');
  });
});

async function fetchJson(api: FakeKubeApiServer, path: string, accept: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, api.url), { ca: api.caPem, agent: false, headers: { Authorization: `Bearer ${api.token}`, Accept: accept } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end();
  });
}
