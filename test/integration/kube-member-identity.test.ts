import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SharedCluster } from '#lab/etcd/shared-cluster.ts';
import { etcdPod } from '#lab/kube-apiserver/etcd-pods.ts';
import { controlPlaneNode } from '#lab/kube-apiserver/nodes.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';
import { get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';

// Issue 10: which member the Kubernetes modes dial is decided by objects in kube-system that others
// can write. Reproduced before the fix: direct mode dialled the pod annotation's URL as written (an
// http:// URL dropped TLS, any host was dialled), and port-forward took any component=etcd pod on the
// node. Now direct mode dials only https URLs on the node's own addresses, and port-forward only the
// mirror pod etcd-<node>. The API server is the stand-in; the members are a real 3-member TLS cluster.

// The project's shared cluster: this file only reads it.
const cluster = SharedCluster.get();
let api: FakeKubeApiServer;
let dir: string;
let service: RunningService | null = null;

interface Members {
  endpoints: { endpoint: string; node: string | null; error: { code: string; layer: string; message: string } | null }[];
  members: { name: string; healthy: boolean }[];
}

beforeAll(async () => {
  api = await FakeKubeApiServer.start();
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-identity-'));
}, 60_000);

afterAll(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await service?.close();
  service = null;
  for (const m of cluster.members) api.removePod('kube-system', `etcd-${m.name}`);
  api.removePod('kube-system', 'etcd-impostor');
});

function seed(annotation: (url: URL) => string = (u) => u.origin): void {
  cluster.members.forEach((m) => {
    const url = new URL(m.clientUrl);
    api.upsertNode(controlPlaneNode(m.name, { createdAt: new Date(Date.now() - 3_600_000), internalIP: url.hostname }));
    api.upsertPod(etcdPod(m.name, { backend: { host: url.hostname, port: Number(url.port) }, advertiseClientUrl: annotation(url) }));
  });
}

async function start(connect: 'direct' | 'port-forward'): Promise<RunningService> {
  const pki = cluster.pki!;
  api.requests.length = 0;
  service = await startService({
    ETCD_PROBE_KUBECONFIG: await api.writeKubeconfig(dir, { auth: 'cert' }),
    ETCD_PROBE_CONNECT: connect,
    ETCD_PROBE_CACERT: pki.caFile,
    ETCD_PROBE_CERT: pki.clientCertFile,
    ETCD_PROBE_KEY: pki.clientKeyFile,
    ETCD_PROBE_TIMEOUT: '1000ms',
    ETCD_PROBE_CACHE_TTL: '0s',
  });
  return service;
}

async function members(s: RunningService): Promise<Members> {
  const response = await get<Members>(`${s.url}/members`);
  expect(checkResponse('GET', '/members', response)).toEqual([]);
  return response.body;
}

describe('direct mode', () => {
  it('dials the annotation when it is https on an address of the node', async () => {
    seed();
    const s = await start('direct');
    const health = await get(`${s.url}/healthz/etcd`);
    expect(health.body.reasons).toEqual([]);
    expect(health.body.status).toBe('healthy');
  });

  it('refuses an http:// annotation and one naming another host, and does not dial InternalIP:2379 instead', async () => {
    const [m1, m2] = cluster.members;
    // m1's annotation drops TLS; m2's names "localhost", which reaches the same etcd but is no address of the node.
    seed((url) => (url.port === new URL(m1!.clientUrl).port ? `http://${url.host}` : url.port === new URL(m2!.clientUrl).port ? `https://localhost:${url.port}` : url.origin));
    const s = await start('direct');
    const health = await get(`${s.url}/healthz/etcd`);
    expect(checkResponse('GET', '/healthz/etcd', health)).toEqual([]);
    // Two of three members are not dialled: never healthy (how bad is the verdict's call).
    expect(health.body.status).not.toBe('healthy');
    const { endpoints } = await members(s);
    const byNode = new Map(endpoints.map((e) => [e.node, e]));
    expect(byNode.get(m1!.name)).toMatchObject({
      endpoint: `http://${new URL(m1!.clientUrl).host}`,
      error: { code: 'ENDPOINT_REFUSED', layer: 'kube-api', message: `not dialled: the advertise-client-urls annotation of pod kube-system/etcd-${m1!.name} is http, not https (the client certificate is offered over TLS only)` },
    });
    expect(byNode.get(m2!.name)).toMatchObject({
      endpoint: `https://localhost:${new URL(m2!.clientUrl).port}`,
      error: { code: 'ENDPOINT_REFUSED', message: `not dialled: the advertise-client-urls annotation of pod kube-system/etcd-${m2!.name} names host localhost, which is not an address of node ${m2!.name} (127.0.0.1)` },
    });
    // Not dialled at all: no endpoint of the node's InternalIP on port 2379 appears.
    expect(endpoints.map((e) => e.endpoint)).not.toContain('https://127.0.0.1:2379');
  });
});

describe('port-forward', () => {
  it('dials only the mirror pod etcd-<node>: a look-alike component=etcd pod on the node is not dialled', async () => {
    seed();
    const [, , m3] = cluster.members;
    const url = new URL(m3!.clientUrl);
    // The real mirror pod goes away; an API-made pod with etcd's labels, on the same node, takes its place...
    api.removePod('kube-system', `etcd-${m3!.name}`);
    const impostor = etcdPod(m3!.name, { backend: { host: url.hostname, port: Number(url.port) } });
    impostor.object.metadata.name = 'etcd-impostor';
    api.upsertPod(impostor);
    const s = await start('port-forward');
    const { endpoints } = await members(s);
    expect(endpoints.map((e) => e.node).sort()).toEqual(['m1', 'm2']);
    expect(api.requests.some((r) => r.path.includes('/pods/etcd-impostor/'))).toBe(false);
    await s.close();
    service = null;

    // ...and one named etcd-<node> but made through the API (no mirror annotation) is not dialled either.
    api.removePod('kube-system', 'etcd-impostor');
    const named = etcdPod(m3!.name, { backend: { host: url.hostname, port: Number(url.port) } });
    delete (named.object.metadata.annotations as Record<string, string>)['kubernetes.io/config.mirror'];
    api.upsertPod(named);
    const again = await start('port-forward');
    expect((await members(again)).endpoints.map((e) => e.node).sort()).toEqual(['m1', 'm2']);
    expect(api.requests.some((r) => r.path === `/api/v1/namespaces/kube-system/pods/etcd-${m3!.name}/portforward`)).toBe(false);
  });

  // Issue 25, a low: the tunnel verifies etcd's certificate for the name `localhost` (a tunnel has no
  // host name, and kubeadm puts localhost into every serving certificate), so any member of the cluster
  // passes TLS through any node's tunnel. What ties the answer to the member is the member ID: a
  // tunnel that reaches another member is WRONG_MEMBER, and the verdict says MEMBER_ID_MISMATCH.
  it("does not take another member's answer through a node's tunnel: the member ID is checked, not only the name localhost", async () => {
    seed();
    const [m1, , m3] = cluster.members;
    const elsewhere = new URL(m1!.clientUrl);
    api.setPodBackend('kube-system', `etcd-${m3!.name}`, { host: elsewhere.hostname, port: Number(elsewhere.port) });
    const s = await start('port-forward');
    const health = await get<{ status: string; reasons: { code: string; member?: { name: string } }[] }>(`${s.url}/healthz/etcd`);
    expect(checkResponse('GET', '/healthz/etcd', health)).toEqual([]);
    expect(health.body.status).not.toBe('healthy');
    expect(health.body.reasons.map((r) => [r.code, r.member?.name])).toContainEqual(['MEMBER_ID_MISMATCH', m3!.name]);
    const reason = health.body.reasons.find((r) => r.code === 'MEMBER_ID_MISMATCH') as { message?: string } | undefined;
    expect(reason?.message).toContain(`is the etcd of node ${m3!.name}, but answered as member`);
    // m1's answer, which came through m3's tunnel, does not make m3 healthy.
    expect((await members(s)).members.find((m) => m.name === m3!.name)?.healthy).toBe(false);
  });
});
