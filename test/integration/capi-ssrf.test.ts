import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { capiManagementRules } from '#lab/kube-apiserver/auth.ts';
import { capiCluster } from '#lab/kube-apiserver/capi-clusters.ts';
import { quickCa, quickLeaf, type QuickCa } from '#lab/kube-apiserver/quick-pki.ts';
import { capiSecret } from '#lab/kube-apiserver/secrets.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';
import { allowingStandIn } from '../helpers/allowing-stand-in.ts';
import { get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';

// Issue 25, hole 1: a tenant who writes `<cluster>-kubeconfig` chose where the service sent its GETs and
// port-forward upgrades, and the peer's error message came back whole (3 KB reproduced) in
// /healthz/etcd and the log. Now the kubeconfig's server must be the Cluster's controlPlaneEndpoint
// (else KUBE_API_NOT_ALLOWED, and no connection is made), and only a short, sanitised `kind: Status`
// message of a peer is reflected. The management cluster is the stand-in; the "tenant's" servers are
// plain listeners of this file. No etcd is needed: every round fails before it would dial a member.

const NAMESPACE = 'tenant-a';
const NAME = 'c1';

let api: FakeKubeApiServer;
let hostileCa: QuickCa;
let dir: string;
let service: RunningService | null = null;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  api = await FakeKubeApiServer.start({ clusterApi: true });
  hostileCa = quickCa('tenant api');
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-capi-ssrf-'));
});

afterAll(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await service?.close();
  service = null;
  for (const close of closers.splice(0)) await close();
});

interface Health {
  status: string;
  reasons: { code: string; message: string }[];
}

async function listen<T extends TcpServer | HttpsServer>(server: T): Promise<{ server: T; port: number }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
}

/** A TCP listener that counts the connections made to it and closes each. */
async function countingListener(): Promise<{ port: number; accepted: () => number }> {
  let accepted = 0;
  const { port } = await listen(
    createTcpServer((socket) => {
      accepted++;
      socket.destroy();
    }),
  );
  return { port, accepted: () => accepted };
}

/** An HTTPS "API server" of the tenant's that answers every request with `status`, `body` and `headers`. */
async function answeringServer(status: number, body: string | Buffer, contentType = 'application/json', headers: Record<string, string> = {}): Promise<number> {
  const leaf = quickLeaf(hostileCa, { commonName: 'tenant-api', server: true, ips: ['127.0.0.1'] });
  const server = createHttpsServer({ cert: leaf.cert, key: leaf.key }, (_req, res) => {
    res.writeHead(status, { 'content-type': contentType, ...headers });
    res.end(body);
  });
  const { port } = await listen(server);
  server.on('connection', () => connections.set(port, (connections.get(port) ?? 0) + 1));
  return port;
}

/** TCP connections accepted by each answering server, by port. */
const connections = new Map<number, number>();

async function capiService(options: { server: string; caPem: string; endpointPort: number; endpointHost?: string; env?: Record<string, string> }): Promise<RunningService> {
  api.upsertCapiCluster(capiCluster(NAMESPACE, NAME, { controlPlaneEndpoint: { host: options.endpointHost ?? '127.0.0.1', port: options.endpointPort } }));
  api.upsertSecret(capiSecret(NAMESPACE, NAME, 'kubeconfig', { value: api.kubeconfig({ auth: 'token', server: options.server, caPem: options.caPem }) }));
  const etcdCa = quickCa('etcd');
  api.upsertSecret(capiSecret(NAMESPACE, NAME, 'etcd', { 'tls.crt': etcdCa.cert, 'tls.key': etcdCa.key }));
  const token = api.addUser('etcd-probe-management', capiManagementRules(NAMESPACE, NAME));
  service = await startService({
    ETCD_PROBE_CAPI_CLUSTER: `${NAMESPACE}/${NAME}`,
    ...(options.env ?? allowingStandIn()),
    ETCD_PROBE_MANAGEMENT_KUBECONFIG: await api.writeKubeconfig(mkdtempSync(join(dir, 'management-')), { auth: 'token', token }),
    ETCD_PROBE_TIMEOUT: '1000ms',
    ETCD_PROBE_CACHE_TTL: '0s',
  });
  return service;
}

async function health(s: RunningService): Promise<Health> {
  const response = await get<Health>(`${s.url}/healthz/etcd`);
  expect(checkResponse('GET', '/healthz/etcd', response)).toEqual([]);
  expect(response.status).toBe(503);
  return response.body;
}

describe("a Cluster API kubeconfig Secret is held to the Cluster's controlPlaneEndpoint", () => {
  it('is not used when its server names another port: KUBE_API_NOT_ALLOWED, and no connection is made there', async () => {
    const elsewhere = await countingListener();
    const s = await capiService({ server: `https://127.0.0.1:${elsewhere.port}`, caPem: api.caPem, endpointPort: api.port });
    for (let round = 0; round < 2; round++) {
      const body = await health(s);
      expect(body.status).toBe('unhealthy');
      expect(body.reasons.map((r) => r.code)).toContain('KUBE_API_NOT_ALLOWED');
      expect(body.reasons.find((r) => r.code.startsWith('KUBE_API'))?.message).toContain(
        `the server of secret ${NAMESPACE}/${NAME}-kubeconfig (127.0.0.1:${elsewhere.port}) is not Cluster ${NAMESPACE}/${NAME}'s spec.controlPlaneEndpoint (127.0.0.1:${api.port}); the cluster is not probed`,
      );
    }
    expect(elsewhere.accepted()).toBe(0);
    // The Cluster was read with get on it alone (the RBAC capiManagementRules grants).
    expect(api.requests.some((r) => r.path === `/apis/cluster.x-k8s.io/v1beta1/namespaces/${NAMESPACE}/clusters/${NAME}` && r.status === 200)).toBe(true);
  });
});

describe('ETCD_PROBE_DENY_CIDRS (default: loopback, 0.0.0.0/8, ::, link-local)', () => {
  it.each([
    ['an address in a denied range', '127.0.0.1'],
    ['a name that resolves into one (checked after DNS)', 'localhost'],
  ])('refuses %s before connecting: KUBE_API_NOT_ALLOWED', async (_what, host) => {
    const port = await answeringServer(200, '{"kind":"NodeList","items":[]}');
    const s = await capiService({ server: `https://${host}:${port}`, caPem: hostileCa.cert, endpointPort: port, endpointHost: host, env: {} });
    const body = await health(s);
    const reason = body.reasons.find((r) => r.code === 'KUBE_API_NOT_ALLOWED');
    expect(reason?.message).toContain('is in ETCD_PROBE_DENY_CIDRS: not connected to');
    expect(connections.get(port) ?? 0).toBe(0);
  });
});

describe('the API server at the endpoint cannot send the requests on', () => {
  it('follows no redirect to another address: KUBE_API_NOT_ALLOWED, and no connection is made there', async () => {
    const elsewhere = await countingListener();
    const port = await answeringServer(302, '', 'text/plain', { location: `https://127.0.0.1:${elsewhere.port}/api/v1/nodes` });
    const s = await capiService({ server: `https://127.0.0.1:${port}`, caPem: hostileCa.cert, endpointPort: port });
    const body = await health(s);
    expect(body.reasons.map((r) => r.code)).toContain('KUBE_API_NOT_ALLOWED');
    expect(body.reasons.find((r) => r.code === 'KUBE_API_NOT_ALLOWED')?.message).toContain(`the API server https://127.0.0.1:${port} redirected the request to another address, which is not followed`);
    expect(elsewhere.accepted()).toBe(0);
  });

  it('reads at most 2 MiB of an answer', async () => {
    const port = await answeringServer(200, Buffer.alloc(3 * 1024 * 1024, 0x20));
    const s = await capiService({ server: `https://127.0.0.1:${port}`, caPem: hostileCa.cert, endpointPort: port });
    const body = await health(s);
    expect(body.reasons.find((r) => r.code.startsWith('KUBE_API'))?.message).toContain('is larger than the service reads from it');
  });
});

describe("a peer's answer is reflected only as a short Status message", () => {
  const LONG = `forbidden: ${'A'.repeat(3000)}`;

  it('caps a 3 KB Status message in /healthz/etcd, the status page and the log', async () => {
    const port = await answeringServer(403, JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: LONG, reason: 'Forbidden', code: 403 }));
    const s = await capiService({ server: `https://127.0.0.1:${port}`, caPem: hostileCa.cert, endpointPort: port });
    const body = await health(s);
    expect(body.reasons.map((r) => r.code)).toContain('KUBE_API_REFUSED');
    expect(body.reasons.find((r) => r.code.startsWith('KUBE_API'))?.message).toContain('forbidden: AAAA');
    expect(body.reasons.find((r) => r.code === 'KUBE_API_REFUSED')?.message.length).toBeLessThan(500);
    const page = await get(`${s.url}/`, { headers: { accept: 'text/html' } });
    const everything = `${JSON.stringify(body)}${page.text}${s.logs.raw}`;
    expect(everything).not.toContain('A'.repeat(250));
  });

  it('does not reflect a body that is not a Status at all', async () => {
    const port = await answeringServer(500, '<html>intranet banner v9 ' + 'B'.repeat(2000) + '</html>', 'text/html');
    const s = await capiService({ server: `https://127.0.0.1:${port}`, caPem: hostileCa.cert, endpointPort: port });
    const body = await health(s);
    expect(body.reasons.find((r) => r.code.startsWith('KUBE_API'))?.message).toContain('HTTP 500 Internal Server Error (HTTP 500 from https://127.0.0.1:');
    expect(`${JSON.stringify(body)}${s.logs.raw}`).not.toContain('intranet banner');
  });
});
