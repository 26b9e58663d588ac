import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { CoreV1Api, CustomObjectsApi, KubeConfig, makeInformer, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapiAccess } from '../../src/discovery/capi-access.ts';
import { TunnelledMemberClient } from '../../src/discovery/tunnelled-member-client.ts';
import { KubeConnection, loadKubeConfig } from '../../src/kube/kube-connection.ts';
import { KubeError } from '../../src/kube/kube-error.ts';
import { mintClientCertificate } from '../../src/tls/mint-client-certificate.ts';
import type { TlsMaterial } from '../../src/tls/tls-files.ts';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { capiReaderRules } from '#lab/kube-apiserver/auth.ts';
import { FakeFleet, type FleetCluster } from '#lab/kube-apiserver/fake-fleet.ts';
import { openTunnel } from '../helpers/client-node-tunnel.ts';
import { eventually } from '../helpers/http.ts';

// The Cluster API fleet STAND-IN (lab/kube-apiserver/fake-fleet.ts) driven by the real
// @kubernetes/client-node and by etcd-probe's own Cluster API code (CapiAccess, KubeConnection,
// TunnelledMemberClient): Clusters listed and watched in the management cluster, each workload cluster's
// kubeconfig and etcd CA read from its Secrets, its nodes and etcd pods listed through its own API
// server, and its port-forward reaching a real etcd member through the stand-in's TLS relay, which
// shows the workload's own etcd PKI. Two real 1-member etcd clusters (A, B) back four workload clusters.

const GROUP = { group: 'cluster.x-k8s.io', version: 'v1beta1', plural: 'clusters' };
const TIMEOUT_MS = 5000;
let a: EtcdCluster;
let b: EtcdCluster;
let fleet: FakeFleet;
let dir: string;
let readerKubeconfig: string;
const memberIds = new Map<EtcdCluster, string>();

/** The member ID a backend answers with, as the service renders it (lowercase hex). */
async function memberIdOf(cluster: EtcdCluster): Promise<string> {
  const client = cluster.client(0);
  try {
    return BigInt((await client.maintenance.status()).header.member_id).toString(16);
  } finally {
    client.close();
  }
}

function kubeConfigFor(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

function fleetCluster(namespace: string, name: string): FleetCluster {
  const found = fleet.cluster(namespace, name);
  if (!found) throw new Error(`no cluster ${namespace}/${name}`);
  return found;
}

/** A client certificate minted from a fleet cluster's etcd CA, as the service mints it, with the CA to verify the server by. */
async function mintedFrom(cluster: FleetCluster, verifyWith: FleetCluster = cluster): Promise<TlsMaterial> {
  const minted = await mintClientCertificate({ caCert: Buffer.from(cluster.etcdCa.cert), caKey: Buffer.from(cluster.etcdCa.key), commonName: 'etcd-probe', now: Date.now() });
  return { ca: Buffer.from(verifyWith.etcdCa.cert), cert: minted.cert, key: minted.key };
}

/** Status of a workload cluster's etcd-<member> through its port-forward, with the service's tunnelled client. */
async function statusThrough(cluster: FleetCluster, tls: TlsMaterial) {
  const connection = new KubeConnection(loadKubeConfig({ kind: 'secret', text: cluster.workload.kubeconfig(), label: 'test' }));
  const member = cluster.backend.members[0]!.name;
  const client = new TunnelledMemberClient({ connection, namespace: 'kube-system', pod: `etcd-${member}`, node: member, port: 2379, timeoutMs: TIMEOUT_MS, endpoint: `port-forward://kube-system/etcd-${member}:2379`, tls });
  try {
    return await client.status();
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  [a, b] = await Promise.all([EtcdCluster.start({ size: 1, tls: true }), EtcdCluster.start({ size: 1, tls: true })]);
  memberIds.set(a, await memberIdOf(a));
  memberIds.set(b, await memberIdOf(b));
  // cluster-001 (team-a, A), cluster-002 (team-b, B), cluster-003 (team-a, A), cluster-004 (team-b, B).
  fleet = await FakeFleet.start({ backends: [a, b], clusters: 4, namespaces: ['team-a', 'team-b'], labels: (i) => ({ env: i % 2 === 0 ? 'dev' : 'prod' }) });
  dir = mkdtempSync(join(tmpdir(), 'fake-fleet-'));
  readerKubeconfig = await fleet.api.writeKubeconfig(dir, { auth: 'token', token: fleet.api.addUser('system:serviceaccount:monitoring:etcd-probe', capiReaderRules('*')) });
}, 120_000);

afterAll(async () => {
  await fleet?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the management cluster, read with client-node as the fleet reader', () => {
  it('lists Clusters across namespaces, in one namespace and by label, each shaped as Cluster API serves it', async () => {
    const api = kubeConfigFor(fleet.api.kubeconfig({ auth: 'token', token: fleet.api.addUser('reader', capiReaderRules('*')) })).makeApiClient(CustomObjectsApi);
    const all = await api.listClusterCustomObject(GROUP);
    expect(all).toMatchObject({ kind: 'ClusterList', apiVersion: 'cluster.x-k8s.io/v1beta1' });
    expect(all.items.map((c: KubernetesObject) => `${c.metadata?.namespace}/${c.metadata?.name}`)).toEqual(['team-a/cluster-001', 'team-a/cluster-003', 'team-b/cluster-002', 'team-b/cluster-004']);
    expect(all.items[0]).toMatchObject({ kind: 'Cluster', apiVersion: 'cluster.x-k8s.io/v1beta1', spec: { controlPlaneRef: { kind: 'KubeadmControlPlane' } }, status: { phase: 'Provisioned', controlPlaneReady: true, infrastructureReady: true } });
    expect(all.items[0].status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`)).toEqual(['Ready=True', 'ControlPlaneInitialized=True', 'ControlPlaneReady=True', 'InfrastructureReady=True']);
    expect(Number(all.metadata.resourceVersion)).toBeGreaterThan(Number(all.items[0].metadata.resourceVersion));

    const teamA = await api.listNamespacedCustomObject({ ...GROUP, namespace: 'team-a' });
    expect(teamA.items.map((c: KubernetesObject) => c.metadata?.name)).toEqual(['cluster-001', 'cluster-003']);
    const prod = await api.listClusterCustomObject({ ...GROUP, labelSelector: 'env=prod' });
    expect(prod.items.map((c: KubernetesObject) => c.metadata?.name)).toEqual(['cluster-002', 'cluster-004']);
    const one = await api.getNamespacedCustomObject({ ...GROUP, namespace: 'team-b', name: 'cluster-002' });
    expect(one.metadata).toMatchObject({ name: 'cluster-002', namespace: 'team-b', finalizers: ['cluster.cluster.x-k8s.io'], labels: { env: 'prod' } });
  });

  it('gives the fleet reader get on Secrets by name but no list, and a namespaced reader nothing outside its namespace', async () => {
    const reader = kubeConfigFor(fleet.api.kubeconfig({ auth: 'token', token: fleet.api.addUser('reader', capiReaderRules('*')) }));
    const core = reader.makeApiClient(CoreV1Api);
    const secret = await core.readNamespacedSecret({ namespace: 'team-a', name: 'cluster-001-kubeconfig' });
    expect(secret.type).toBe('cluster.x-k8s.io/secret');
    await expect(core.listNamespacedSecret({ namespace: 'team-a' })).rejects.toMatchObject({ code: 403 });

    const teamA = kubeConfigFor(fleet.api.kubeconfig({ auth: 'token', token: fleet.api.addUser('team-a-reader', capiReaderRules(['team-a'])) }));
    const custom = teamA.makeApiClient(CustomObjectsApi);
    expect((await custom.listNamespacedCustomObject({ ...GROUP, namespace: 'team-a' })).items).toHaveLength(2);
    await expect(custom.listClusterCustomObject(GROUP)).rejects.toMatchObject({ code: 403 });
    await expect(teamA.makeApiClient(CoreV1Api).readNamespacedSecret({ namespace: 'team-b', name: 'cluster-002-etcd' })).rejects.toMatchObject({ code: 403 });
  });

  it('follows Clusters with an informer (list, then watch) as they are added, paused, deleted and removed', async () => {
    const kc = kubeConfigFor(fleet.api.kubeconfig({ auth: 'token', token: fleet.api.addUser('watcher', capiReaderRules('*')) }));
    const custom = kc.makeApiClient(CustomObjectsApi);
    const informer = makeInformer<KubernetesObject & { spec?: { paused?: boolean }; status?: { phase?: string } }>(kc, '/apis/cluster.x-k8s.io/v1beta1/clusters', () => custom.listClusterCustomObject(GROUP));
    const seen: string[] = [];
    informer.on('add', (c) => seen.push(`add ${c.metadata?.name}`));
    informer.on('update', (c) => seen.push(`update ${c.metadata?.name} paused=${c.spec?.paused ?? false} phase=${c.status?.phase} deleting=${c.metadata?.deletionTimestamp !== undefined}`));
    informer.on('delete', (c) => seen.push(`delete ${c.metadata?.name}`));
    await informer.start();
    try {
      await eventually(async () => fleet.api.openWatches, (n) => n === 1, 5000, 20);
      fleet.addCluster('team-a', 'late', { backend: 0 });
      fleet.pause('team-a', 'late');
      fleet.startDeleting('team-a', 'late');
      fleet.removeCluster('team-a', 'late');
      const events = await eventually(async () => seen.slice(), (s) => s.includes('delete late'), 5000, 20);
      expect(events.filter((e) => !e.includes('cluster-00'))).toEqual([
        'add late',
        'update late paused=true phase=Provisioned deleting=false',
        'update late paused=true phase=Deleting deleting=true',
        'delete late',
      ]);
      expect(events.filter((e) => e.startsWith('add cluster-')).sort()).toEqual(['add cluster-001', 'add cluster-002', 'add cluster-003', 'add cluster-004']);
      expect(informer.list().map((c) => c.metadata?.name).sort()).toEqual(['cluster-001', 'cluster-002', 'cluster-003', 'cluster-004']);
    } finally {
      await informer.stop();
    }
  });
});

describe("each workload cluster through etcd-probe's own Cluster API code", () => {
  it.each([
    ['team-a', 'cluster-001', () => a],
    ['team-b', 'cluster-002', () => b],
  ])('%s/%s: Secrets read, certificate minted from its CA, nodes and pods listed, its real etcd reached through the relay', async (namespace, name, backend) => {
    const management = new KubeConnection(loadKubeConfig({ kind: 'file', path: readerKubeconfig }));
    const access = new CapiAccess({ management, cluster: { namespace, name }, refreshMs: 60_000, now: Date.now });
    const { connection, tls } = await access.resolve(TIMEOUT_MS);
    const cluster = fleetCluster(namespace, name);
    expect(tls.ca?.toString()).toBe(cluster.etcdCa.cert);
    expect(connection.server).toBe(cluster.workload.url);

    const member = backend().members[0]!.name;
    const nodes = await connection.listNodes('node-role.kubernetes.io/control-plane', TIMEOUT_MS);
    expect(nodes.map((n) => n.facts.name)).toEqual([member]);
    const pods = await connection.listStaticPods('kube-system', 'component=etcd', TIMEOUT_MS);
    expect(pods.map((p) => p.name)).toEqual([`etcd-${member}`]);

    const client = new TunnelledMemberClient({ connection, namespace: 'kube-system', pod: `etcd-${member}`, node: member, port: 2379, timeoutMs: TIMEOUT_MS, endpoint: `port-forward://kube-system/etcd-${member}:2379`, tls });
    try {
      const status = await client.status();
      expect(status.ok ? status.value.memberId : status.error).toBe(memberIds.get(backend()));
      // The relay keeps its ticket keys as a member does: the next port-forward resumes the TLS session.
      await client.release();
      const again = await client.status();
      expect(again.ok ? again.value.memberId : again.error).toBe(memberIds.get(backend()));
      expect(client.handshakes).toEqual({ full: 1, resumed: 1 });
    } finally {
      client.close();
    }
    expect(cluster.tlsFailures).toEqual([]);
    expect(fleet.api.requests.some((r) => r.path === `${cluster.workload.prefix}/api/v1/namespaces/kube-system/pods/etcd-${member}/portforward` && r.status === 101)).toBe(true);
  });

  it("refuses a client certificate from another cluster's CA (even one on the same backend), and none at all", async () => {
    const one = fleetCluster('team-a', 'cluster-001');
    const three = fleetCluster('team-a', 'cluster-003');
    expect(one.backend).toBe(three.backend);
    one.tlsFailures.length = 0;
    const refused = await statusThrough(one, await mintedFrom(three, one));
    expect(refused.ok).toBe(false);
    expect(new Set(one.tlsFailures)).toEqual(new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE']));
    one.tlsFailures.length = 0;
    const own = await mintedFrom(one);
    const bare = await statusThrough(one, { ...own, cert: null, key: null });
    expect(bare.ok).toBe(false);
    expect(new Set(one.tlsFailures)).toEqual(new Set(['NO_CERTIFICATE']));
    // The cluster's own certificate still works: the refusals were about the certificates.
    const accepted = await statusThrough(one, own);
    expect(accepted.ok ? accepted.value.memberId : accepted.error).toBe(memberIds.get(a));
  });

  it("shows each cluster its own serving certificate: verified with another cluster's CA, the handshake fails", async () => {
    const one = fleetCluster('team-a', 'cluster-001');
    const three = fleetCluster('team-a', 'cluster-003');
    const result = await statusThrough(one, await mintedFrom(one, three));
    expect(result.ok).toBe(false);
    expect(result.ok ? null : result.error.layer).toBe('tls');
  });

  it("port-forwards with client-node's own PortForward through the workload's URL path: TLS of the cluster's CA, h2, the member's HTTP/2 answer", async () => {
    const two = fleetCluster('team-b', 'cluster-002');
    const member = b.members[0]!.name;
    const tunnel = await openTunnel(kubeConfigFor(two.workload.kubeconfig()), 'kube-system', `etcd-${member}`, 2379);
    const minted = await mintClientCertificate({ caCert: Buffer.from(two.etcdCa.cert), caKey: Buffer.from(two.etcdCa.key), commonName: 'etcd-probe', now: Date.now() });
    const socket = tlsConnect({ socket: Duplex.from({ readable: tunnel.output, writable: tunnel.input }), ca: two.etcdCa.cert, cert: minted.cert, key: minted.key, servername: 'localhost', ALPNProtocols: ['h2'] });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', resolve);
        socket.once('error', reject);
      });
      expect(socket.authorized).toBe(true);
      expect(socket.alpnProtocol).toBe('h2');
      expect(socket.getPeerX509Certificate()?.issuer).toBe(`CN=etcd-ca team-b/cluster-002`);
      // The HTTP/2 client preface and an empty SETTINGS frame: the real member answers with its SETTINGS.
      socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]));
      const frame = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
      expect(frame[3]).toBe(4);
    } finally {
      socket.destroy();
      tunnel.ws.terminate();
    }
    expect(fleet.api.requests.filter((r) => r.upgrade).at(-1)).toMatchObject({ path: `/workloads/team-b/cluster-002/api/v1/namespaces/kube-system/pods/etcd-${member}/portforward`, status: 101 });
  });

  it('leaves no tunnel or relay connection open once the clients have closed', async () => {
    const left = await eventually(async () => [fleet.api.openTunnels, fleet.api.openBackendSockets], (n) => n.every((x) => x === 0), 5000, 20);
    expect(left).toEqual([0, 0]);
    expect(fleet.api.tunnelBytes.fromPods).toBeGreaterThan(0);
  });

  it("answers a workload's credentials at another workload's URL with 401", async () => {
    const one = kubeConfigFor(fleetCluster('team-a', 'cluster-001').workload.kubeconfig());
    const other = fleetCluster('team-b', 'cluster-002').workload.url;
    one.clusters = one.clusters.map((c) => ({ ...c, server: other }));
    await expect(one.makeApiClient(CoreV1Api).listNode()).rejects.toMatchObject({ code: 401 });
  });
});

describe('clusters added and removed at run time', () => {
  it('a new cluster is listed and reachable at once; a removed one is gone from the list, its Secrets 404 and its API resets', async () => {
    const management = new KubeConnection(loadKubeConfig({ kind: 'file', path: readerKubeconfig }));
    const custom = kubeConfigFor(fleet.api.kubeconfig({ auth: 'cert' })).makeApiClient(CustomObjectsApi);
    const names = async () => (await custom.listClusterCustomObject(GROUP)).items.map((c: KubernetesObject) => c.metadata?.name);

    const added = fleet.addCluster('team-c', 'fresh', { backend: 1 });
    expect(await names()).toContain('fresh');
    const access = new CapiAccess({ management, cluster: { namespace: 'team-c', name: 'fresh' }, refreshMs: 60_000, now: Date.now });
    const { connection, tls } = await access.resolve(TIMEOUT_MS);
    const member = b.members[0]!.name;
    const client = new TunnelledMemberClient({ connection, namespace: 'kube-system', pod: `etcd-${member}`, node: member, port: 2379, timeoutMs: TIMEOUT_MS, endpoint: 'x', tls });
    try {
      const status = await client.status();
      expect(status.ok ? status.value.memberId : status.error).toBe(memberIds.get(b));
    } finally {
      client.close();
    }

    expect(fleet.removeCluster('team-c', 'fresh')).toBe(true);
    expect(await names()).not.toContain('fresh');
    await expect(management.readSecret('team-c', 'fresh-kubeconfig', TIMEOUT_MS)).rejects.toMatchObject({ kind: 'not-found', status: 404 });
    const error = await connection.listNodes('node-role.kubernetes.io/control-plane', TIMEOUT_MS).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubeError);
    expect(error).toMatchObject({ kind: 'unreachable' });
    expect(fleet.api.requests.at(-1)).toMatchObject({ path: `${added.workload.prefix}/api/v1/nodes`, status: 0 });
  });
});
