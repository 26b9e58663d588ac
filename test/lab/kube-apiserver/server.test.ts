import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTunnel } from '../../helpers/client-node-tunnel.ts';
import { eventually } from '../../helpers/http.ts';
import { etcdPod } from '#lab/kube-apiserver/etcd-pods.ts';
import { controlPlaneNode } from '#lab/kube-apiserver/nodes.ts';
import { capiSecret, secret } from '#lab/kube-apiserver/secrets.ts';
import { workloadProbeRules } from '#lab/kube-apiserver/auth.ts';
import { rawGet } from '#lab/kube-apiserver/raw-get.ts';
import { parseFieldSelector, parseLabelSelector, SelectorError } from '#lab/kube-apiserver/selectors.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';

// The kube-apiserver stand-in, driven by the real @kubernetes/client-node: authentication, Status errors,
// selectors, RBAC, in-cluster config, port-forward framing and failures, stop/start and pause. Port-forward
// to a real etcd is in test/integration/fake-kube-port-forward.test.ts; here the pod's port is a TCP echo.

let api: FakeKubeApiServer;
let echo: Server;
let echoPort: number;
let dir: string;

function client(kc: KubeConfig): CoreV1Api {
  return kc.makeApiClient(CoreV1Api);
}

function config(yaml: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(yaml);
  return kc;
}

async function failure(promise: Promise<unknown>): Promise<ApiException<any>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiException)) throw new Error(`expected an ApiException, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fake-kube-'));
  echo = createServer((socket) => {
    socket.on('error', () => {});
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as import('node:net').AddressInfo).port;
  api = await FakeKubeApiServer.start();
});

afterAll(async () => {
  await api?.close();
  echo?.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  for (const n of ['cp-1', 'cp-2', 'cp-3', 'worker-1']) api.removeNode(n);
  for (const n of ['cp-1', 'cp-2', 'cp-3']) api.removePod('kube-system', `etcd-${n}`);
  api.upsertNode(controlPlaneNode('cp-1', { internalIP: '10.0.0.11' }));
  api.upsertNode(controlPlaneNode('cp-2', { internalIP: '10.0.0.12', ready: false }));
  api.upsertNode(controlPlaneNode('cp-3', { internalIP: '10.0.0.13', legacyLabel: true, ready: 'Unknown' }));
  api.upsertNode({ ...controlPlaneNode('worker-1'), metadata: { ...controlPlaneNode('worker-1').metadata, labels: { 'kubernetes.io/hostname': 'worker-1' } } });
  api.upsertPod(etcdPod('cp-1', { internalIP: '10.0.0.11', backend: { host: '127.0.0.1', port: echoPort } }));
  api.upsertPod(etcdPod('cp-2', { internalIP: '10.0.0.12', ready: false, backend: null }));
  api.requests.length = 0;
});

describe('authentication', () => {
  it('accepts the client certificate and the bearer token, and records the user', async () => {
    const byCert = await client(config(api.kubeconfig({ auth: 'cert' }))).listNode();
    const byToken = await client(config(api.kubeconfig({ auth: 'token' }))).listNode();
    expect(byCert.items).toHaveLength(4);
    expect(byToken.items).toHaveLength(4);
    expect(api.requests.map((r) => [r.user, r.status])).toEqual([
      ['kubernetes-admin', 200],
      ['token-admin', 200],
    ]);
  });

  it('answers 401 with an Unauthorized Status without credentials or with a token it did not issue', async () => {
    const none = await rawGet(api.url, '/api/v1/nodes', { caPem: api.caPem });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    const error = await failure(client(config(api.kubeconfig({ auth: 'token', token: 'not-issued' }))).listNode());
    expect(error.code).toBe(401);
    const stranger = config(api.kubeconfig({ auth: 'token', token: 'not-issued' }));
    await expect(openTunnel(stranger, 'kube-system', 'etcd-cp-1', 2379)).rejects.toMatchObject({ message: 'Unexpected server response: 401' });
    expect(api.requests.map((r) => [r.user, r.status, r.upgrade])).toEqual([
      [null, 401, false],
      [null, 401, false],
      [null, 401, true],
    ]);
  });

  it('does not trust a client certificate from another CA', async () => {
    const { issue, makeCa } = await import('#lab/certs/pki.ts');
    const stranger = await issue(await makeCa('stranger'), { commonName: 'kubernetes-admin', client: true });
    const response = await rawGet(api.url, '/api/v1/nodes', { caPem: api.caPem, cert: stranger });
    expect(response.status).toBe(401);
  });

  it('loads in-cluster credentials the way KubeConfig.loadFromCluster reads them', async () => {
    const layout = await api.writeInCluster(join(dir, 'pod'));
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    Object.assign(process.env, layout.env);
    try {
      const kc = new KubeConfig();
      kc.loadFromCluster(layout.pathPrefix);
      expect((await client(kc).readNode({ name: 'cp-1' })).metadata?.name).toBe('cp-1');
      expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('kube-system');
    } finally {
      for (const [key, value] of [['KUBERNETES_SERVICE_HOST', saved.host], ['KUBERNETES_SERVICE_PORT', saved.port]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it('loads a kubeconfig file', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(await api.writeKubeconfig(dir, { auth: 'cert' }));
    expect((await client(kc).listNode()).items.length).toBe(4);
  });
});

describe('reads', () => {
  it('serves lists shaped as the real API: List kind, resourceVersion, items without kind/apiVersion', async () => {
    const response = await rawGet(api.url, '/api/v1/nodes', { caPem: api.caPem, token: api.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
    const item = response.body.items[0];
    expect(item.kind).toBeUndefined();
    expect(item.apiVersion).toBeUndefined();
    expect(Object.keys(item.metadata)).toEqual(expect.arrayContaining(['name', 'uid', 'resourceVersion', 'creationTimestamp', 'labels', 'annotations']));
    const single = await rawGet(api.url, '/api/v1/nodes/cp-1', { caPem: api.caPem, token: api.token });
    expect(single.body).toMatchObject({ kind: 'Node', apiVersion: 'v1', metadata: { name: 'cp-1' } });
  });

  it('decodes nodes with client-node: Ready condition, InternalIP, creation time, kubelet version', async () => {
    const core = client(config(api.kubeconfig({ auth: 'cert' })));
    const nodes = await core.listNode();
    const ready = Object.fromEntries(nodes.items.map((n) => [n.metadata?.name, n.status?.conditions?.find((c) => c.type === 'Ready')?.status]));
    expect(ready).toEqual({ 'cp-1': 'True', 'cp-2': 'False', 'cp-3': 'Unknown', 'worker-1': 'True' });
    const cp1 = nodes.items.find((n) => n.metadata?.name === 'cp-1');
    expect(cp1?.status?.addresses).toEqual([
      { type: 'InternalIP', address: '10.0.0.11' },
      { type: 'Hostname', address: 'cp-1' },
    ]);
    expect(cp1?.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(cp1?.status?.nodeInfo?.kubeletVersion).toMatch(/^v1\.\d+\.\d+$/);
    api.setNodeReady('cp-1', 'Unknown');
    const changed = await core.readNode({ name: 'cp-1' });
    expect(changed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown' });
    expect(changed.spec?.taints?.map((t) => t.key)).toContain('node.kubernetes.io/unreachable');
  });

  it('answers 404 with a NotFound Status for missing objects', async () => {
    const core = client(config(api.kubeconfig({ auth: 'cert' })));
    const error = await failure(core.readNode({ name: 'cp-9' }));
    expect(error.code).toBe(404);
    expect(JSON.parse(error.body as string)).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'nodes "cp-9" not found', code: 404 });
    const secretError = await failure(core.readNamespacedSecret({ namespace: 'default', name: 'nope' }));
    expect(JSON.parse(secretError.body as string).message).toBe('secrets "nope" not found');
  });

  it('filters nodes with label selectors', async () => {
    const core = client(config(api.kubeconfig({ auth: 'token' })));
    const names = async (labelSelector: string) => (await core.listNode({ labelSelector })).items.map((n) => n.metadata?.name);
    expect(await names('node-role.kubernetes.io/control-plane')).toEqual(['cp-1', 'cp-2']);
    expect(await names('node-role.kubernetes.io/master')).toEqual(['cp-3']);
    expect(await names('!node-role.kubernetes.io/control-plane')).toEqual(['cp-3', 'worker-1']);
    expect(await names('kubernetes.io/hostname=cp-2')).toEqual(['cp-2']);
    expect(await names('kubernetes.io/hostname==cp-2')).toEqual(['cp-2']);
    expect(await names('kubernetes.io/hostname!=cp-2,kubernetes.io/os')).toEqual(['cp-1', 'cp-3']);
    // `!=` also selects objects without the label, as in apimachinery.
    expect(await names('node-role.kubernetes.io/master!=yes')).toEqual(['cp-1', 'cp-2', 'cp-3', 'worker-1']);
    expect(await names('kubernetes.io/hostname in (cp-1, cp-3)')).toEqual(['cp-1', 'cp-3']);
    expect(await names('kubernetes.io/hostname notin (cp-1,cp-3)')).toEqual(['cp-2', 'worker-1']);
    const bad = await failure(core.listNode({ labelSelector: 'a b c' }));
    expect(bad.code).toBe(400);
  });

  it('lists etcd pods by label and by spec.nodeName, shaped as kubeadm static pods', async () => {
    const core = client(config(api.kubeconfig({ auth: 'cert' })));
    const pods = await core.listNamespacedPod({ namespace: 'kube-system', labelSelector: 'component=etcd,tier=control-plane' });
    expect(pods.items.map((p) => p.metadata?.name)).toEqual(['etcd-cp-1', 'etcd-cp-2']);
    const cp2 = (await core.listNamespacedPod({ namespace: 'kube-system', fieldSelector: 'spec.nodeName=cp-2' })).items;
    expect(cp2).toHaveLength(1);
    const pod = cp2[0];
    expect(pod?.spec?.hostNetwork).toBe(true);
    expect(pod?.metadata?.annotations?.['kubeadm.kubernetes.io/etcd.advertise-client-urls']).toBe('https://10.0.0.12:2379');
    expect(pod?.spec?.containers[0]?.command).toContain('--advertise-client-urls=https://10.0.0.12:2379');
    expect(pod?.status?.conditions?.filter((c) => c.type === 'Ready' || c.type === 'ContainersReady').map((c) => c.status)).toEqual(['False', 'False']);
    expect(pod?.status?.containerStatuses?.[0]?.ready).toBe(false);
    expect((await core.listNamespacedPod({ namespace: 'default', labelSelector: 'component=etcd' })).items).toEqual([]);
    const node = controlPlaneNode('cp-7', { internalIP: '10.0.0.77' });
    expect(etcdPod(node).object.metadata.annotations?.['kubeadm.kubernetes.io/etcd.advertise-client-urls']).toBe('https://10.0.0.77:2379');
    api.setPodReady('kube-system', 'etcd-cp-2', true);
    const after = await core.readNamespacedPod({ namespace: 'kube-system', name: 'etcd-cp-2' });
    expect(after.status?.containerStatuses?.[0]?.ready).toBe(true);
    expect(Number(after.metadata?.resourceVersion)).toBeGreaterThan(Number(pod?.metadata?.resourceVersion));
  });

  it('serves secrets base64-encoded in data', async () => {
    api.upsertSecret(secret('default', 'c1-etcd-client', { 'ca.crt': 'CA PEM', 'tls.crt': 'CERT PEM', 'tls.key': 'KEY PEM' }));
    api.upsertSecret(capiSecret('default', 'c1', 'kubeconfig', { value: 'apiVersion: v1' }));
    const core = client(config(api.kubeconfig({ auth: 'cert' })));
    const tls = await core.readNamespacedSecret({ namespace: 'default', name: 'c1-etcd-client' });
    expect(tls.type).toBe('kubernetes.io/tls');
    expect(Buffer.from(tls.data?.['tls.key'] ?? '', 'base64').toString()).toBe('KEY PEM');
    const kubeconfig = await core.readNamespacedSecret({ namespace: 'default', name: 'c1-kubeconfig' });
    expect(kubeconfig.type).toBe('cluster.x-k8s.io/secret');
    expect(Buffer.from(kubeconfig.data?.value ?? '', 'base64').toString()).toBe('apiVersion: v1');
  });

  it('refuses writes with 405 (the probe must stay read-only)', async () => {
    const core = client(config(api.kubeconfig({ auth: 'cert' })));
    const error = await failure(core.deleteNode({ name: 'cp-1' }));
    expect(error.code).toBe(405);
    expect(api.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/api/v1/nodes/cp-1', status: 405 });
  });
});

describe('selector parsing', () => {
  const labels = { a: '1', b: '' };
  it.each([
    ['', true],
    ['a', true],
    ['c', false],
    ['!c', true],
    ['!a', false],
    ['a=1', true],
    ['a==1', true],
    ['a=2', false],
    ['a!=2', true],
    ['c!=2', true],
    ['b=', true],
    ['a in (1,2)', true],
    ['c in (1)', false],
    ['a notin (1)', false],
    ['c notin (1)', true],
    ['a=1,b', true],
    ['a=1,c', false],
  ])('%j on {a:1, b:""} → %s', (selector, expected) => {
    expect(parseLabelSelector(selector)(labels)).toBe(expected);
  });

  it('rejects what apimachinery rejects', () => {
    expect(() => parseLabelSelector('a b c')).toThrow(SelectorError);
    expect(() => parseLabelSelector('a,,b')).toThrow(SelectorError);
    expect(() => parseFieldSelector('spec.nodeName', ['spec.nodeName'])).toThrow(SelectorError);
    expect(() => parseFieldSelector('spec.other=x', ['spec.nodeName'])).toThrow('field label not supported: spec.other');
    expect(parseFieldSelector('spec.nodeName=n1', ['spec.nodeName'])({ 'spec.nodeName': 'n1' })).toBe(true);
  });
});

describe('RBAC', () => {
  it('allows only what the rules grant and words the 403 as the authorizer does', async () => {
    api.upsertSecret(secret('kube-system', 'etcd-client', { 'tls.crt': 'c', 'tls.key': 'k' }));
    api.upsertSecret(secret('kube-system', 'other', { x: 'y' }));
    const user = 'system:serviceaccount:monitoring:etcd-probe';
    const token = api.addUser(user, [
      { verbs: ['get', 'list'], resources: ['nodes'] },
      { verbs: ['get', 'list'], resources: ['pods'], namespace: 'kube-system' },
      { verbs: ['get'], resources: ['secrets'], namespace: 'kube-system', resourceNames: ['etcd-client'] },
    ]);
    const core = client(config(api.kubeconfig({ auth: 'token', token })));
    expect((await core.listNode()).items).toHaveLength(4);
    expect((await core.readNamespacedSecret({ namespace: 'kube-system', name: 'etcd-client' })).data?.['tls.crt']).toBe('Yw==');
    const other = await failure(core.readNamespacedSecret({ namespace: 'kube-system', name: 'other' }));
    expect(other.code).toBe(403);
    expect(JSON.parse(other.body as string)).toMatchObject({
      reason: 'Forbidden',
      message: `secrets "other" is forbidden: User "${user}" cannot get resource "secrets" in API group "" in the namespace "kube-system"`,
    });
    const list = await failure(core.listNamespacedSecret({ namespace: 'kube-system' }));
    expect(list.code).toBe(403);
    await expect(openTunnel(config(api.kubeconfig({ auth: 'token', token })), 'kube-system', 'etcd-cp-1', 2379)).rejects.toMatchObject({
      message: 'Unexpected server response: 403',
    });
    const probe = config(api.kubeconfig({ auth: 'token', token: api.addUser('probe', workloadProbeRules({ tlsSecret: { namespace: 'kube-system', name: 'etcd-client' } })) }));
    expect((await client(probe).listNamespacedPod({ namespace: 'kube-system' })).items).toHaveLength(2);
    expect((await failure(client(probe).listNamespacedPod({ namespace: 'default' }))).code).toBe(403);
    const viaProbe = await openTunnel(probe, 'kube-system', 'etcd-cp-1', 2379);
    viaProbe.ws.close();
    await viaProbe.closed;
    expect(api.requests.filter((r) => r.user === user).map((r) => `${r.status} ${r.method} ${r.path}`)).toEqual([
      '200 GET /api/v1/nodes',
      '200 GET /api/v1/namespaces/kube-system/secrets/etcd-client',
      '403 GET /api/v1/namespaces/kube-system/secrets/other',
      '403 GET /api/v1/namespaces/kube-system/secrets',
      '403 GET /api/v1/namespaces/kube-system/pods/etcd-cp-1/portforward',
    ]);
  });
});

describe('port-forward', () => {
  it('negotiates v4.channel.k8s.io and carries bytes both ways; closing it closes the backend socket', async () => {
    const kc = config(api.kubeconfig({ auth: 'cert' }));
    const tunnel = await openTunnel(kc, 'kube-system', 'etcd-cp-1', 2379);
    expect(tunnel.ws.protocol).toBe('v4.channel.k8s.io');
    const got = new Promise<string>((resolve) => tunnel.output.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    tunnel.input.write('ping through the tunnel');
    expect(await got).toBe('ping through the tunnel');
    expect(api.openTunnels).toBe(1);
    expect(api.openBackendSockets).toBe(1);
    tunnel.input.end();
    await tunnel.closed;
    const counts = await eventually(async () => [api.openTunnels, api.openBackendSockets], (c) => c.every((n) => n === 0), 2000, 20);
    expect(counts).toEqual([0, 0]);
    expect(api.tunnelBytes).toMatchObject({ toPods: expect.any(Number), fromPods: expect.any(Number) });
    expect(api.tunnelBytes.fromPods).toBeGreaterThanOrEqual('ping through the tunnel'.length);
  });

  async function rawTunnel(query: string, protocols: string[]) {
    const { default: WebSocket } = await import('ws');
    const frames: Buffer[] = [];
    const ws = new WebSocket(`wss://127.0.0.1:${api.port}/api/v1/namespaces/kube-system/pods/etcd-cp-1/portforward?${query}`, protocols, {
      ca: api.caPem,
      headers: { Authorization: `Bearer ${api.token}` },
    });
    ws.on('message', (data: Buffer) => frames.push(data));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return { ws, frames };
  }

  it('sends the port number (2 bytes, little-endian) first on each channel, data 2i and error 2i+1 per port', async () => {
    const { ws, frames } = await rawTunnel('ports=2379&ports=2381', ['v4.channel.k8s.io']);
    ws.send(Buffer.concat([Buffer.from([2]), Buffer.from('x')]));
    await eventually(async () => frames.length, (n) => n >= 5, 2000, 10);
    ws.close();
    expect(frames.slice(0, 5).map((f) => [...f])).toEqual([
      [0, 2379 & 0xff, 2379 >> 8],
      [1, 2379 & 0xff, 2379 >> 8],
      [2, 2381 & 0xff, 2381 >> 8],
      [3, 2381 & 0xff, 2381 >> 8],
      [2, 'x'.charCodeAt(0)],
    ]);
  });

  it('speaks v4.base64.channel.k8s.io as text frames: channel digit, then base64', async () => {
    const { ws, frames } = await rawTunnel('ports=2379', ['v4.base64.channel.k8s.io']);
    expect(ws.protocol).toBe('v4.base64.channel.k8s.io');
    ws.send(`0${Buffer.from('hi').toString('base64')}`);
    await eventually(async () => frames.length, (n) => n >= 3, 2000, 10);
    ws.close();
    expect(frames.slice(0, 3).map((f) => f.toString())).toEqual(['0Swk=', '1Swk=', `0${Buffer.from('hi').toString('base64')}`]);
  });

  it('refuses a WebSocket that offers no port-forward subprotocol', async () => {
    await expect(rawTunnel('ports=2379', ['v5.channel.k8s.io'])).rejects.toThrow('Unexpected server response: 403');
    expect(api.openBackendSockets).toBe(0);
  });

  it('when nothing listens on the pod port, the kubelet error arrives on the error channel and the socket closes', async () => {
    const tunnel = await openTunnel(config(api.kubeconfig({ auth: 'cert' })), 'kube-system', 'etcd-cp-2', 2379);
    expect(await tunnel.closed).toBe(1005);
    expect(tunnel.errorText()).toMatch(/^error forwarding port 2379 to pod [0-9a-f]{64}, uid : failed to execute portforward in network namespace "host": .*dial tcp4 127\.0\.0\.1:2379: connect: connection refused/);
    // client-node keeps the input piped into a closed WebSocket; writing must not throw.
    tunnel.input.write('late bytes');
    expect(api.openTunnels).toBe(0);
  });

  it("'error-channel' reports the dial error even though a backend exists", async () => {
    api.setPortForwardFailure('kube-system', 'etcd-cp-1', 'error-channel');
    const tunnel = await openTunnel(config(api.kubeconfig({ auth: 'cert' })), 'kube-system', 'etcd-cp-1', 2379);
    await tunnel.closed;
    expect(tunnel.errorText()).toContain('error forwarding port 2379 to pod');
    expect(api.openBackendSockets).toBe(0);
  });

  it("'refuse' fails the upgrade with the API server's 500 Status; client-node only says the status code", async () => {
    api.setPortForwardFailure('kube-system', 'etcd-cp-1', 'refuse');
    const kc = config(api.kubeconfig({ auth: 'cert' }));
    await expect(openTunnel(kc, 'kube-system', 'etcd-cp-1', 2379)).rejects.toMatchObject({ message: 'Unexpected server response: 500' });
    await expect(openTunnel(kc, 'kube-system', 'etcd-cp-9', 2379)).rejects.toMatchObject({ message: 'Unexpected server response: 404' });
    expect(api.requests.map((r) => [r.status, r.upgrade])).toEqual([
      [500, true],
      [404, true],
    ]);
  });

  it("'hang' upgrades and then moves no bytes; 'hang-upgrade' never answers", async () => {
    const kc = config(api.kubeconfig({ auth: 'cert' }));
    api.setPortForwardFailure('kube-system', 'etcd-cp-1', 'hang');
    const tunnel = await openTunnel(kc, 'kube-system', 'etcd-cp-1', 2379);
    let received = 0;
    tunnel.output.on('data', (chunk: Buffer) => (received += chunk.length));
    tunnel.input.write('anyone?');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toBe(0);
    expect(api.openBackendSockets).toBe(0);
    tunnel.ws.close();
    await tunnel.closed;

    api.setPortForwardFailure('kube-system', 'etcd-cp-1', 'hang-upgrade');
    const outcome = await Promise.race([openTunnel(kc, 'kube-system', 'etcd-cp-1', 2379).then(() => 'opened', () => 'failed'), new Promise((r) => setTimeout(() => r('pending'), 500))]);
    expect(outcome).toBe('pending');
    // stop() resets the held connection, so the pending upgrade fails instead of leaking.
    await api.stop();
    await api.start();
    expect(api.openConnections).toBe(0);
  });

  it('a backend that closes closes the WebSocket', async () => {
    const once = createServer((socket) => socket.end('bye'));
    await new Promise<void>((resolve) => once.listen(0, '127.0.0.1', resolve));
    try {
      api.setPodBackend('kube-system', 'etcd-cp-1', { host: '127.0.0.1', port: (once.address() as import('node:net').AddressInfo).port });
      const tunnel = await openTunnel(config(api.kubeconfig({ auth: 'cert' })), 'kube-system', 'etcd-cp-1', 2379);
      let text = '';
      tunnel.output.on('data', (chunk: Buffer) => (text += chunk.toString()));
      await tunnel.closed;
      expect(text).toBe('bye');
      expect(tunnel.errorText()).toBe('');
    } finally {
      once.close();
    }
  });
});

describe('outages', () => {
  it('stop() refuses connections and drops open tunnels; start() serves again on the same port', async () => {
    const kc = config(api.kubeconfig({ auth: 'cert' }));
    const tunnel = await openTunnel(kc, 'kube-system', 'etcd-cp-1', 2379);
    const port = api.port;
    await api.stop();
    expect(await tunnel.closed).toBe(1006);
    expect([api.openTunnels, api.openBackendSockets, api.openConnections]).toEqual([0, 0, 0]);
    const error = await client(kc).listNode().then(
      () => null,
      (e: { cause?: { code?: string } }) => e,
    );
    expect(error?.cause?.code).toBe('ECONNREFUSED');
    await api.start();
    expect(api.port).toBe(port);
    expect((await client(kc).listNode()).items).toHaveLength(4);
  });

  it('pause() leaves requests unanswered until resume()', async () => {
    const core = client(config(api.kubeconfig({ auth: 'cert' })));
    api.pause();
    try {
      const pending = core.listNode();
      const first = await Promise.race([pending.then(() => 'answered'), new Promise((r) => setTimeout(() => r('pending'), 500))]);
      expect(first).toBe('pending');
      expect(api.openConnections).toBeGreaterThan(0);
      api.resume();
      expect((await pending).items).toHaveLength(4);
    } finally {
      api.resume();
    }
  });

  it('pause() freezes open tunnels; resume() lets the bytes through', async () => {
    const tunnel = await openTunnel(config(api.kubeconfig({ auth: 'cert' })), 'kube-system', 'etcd-cp-1', 2379);
    let text = '';
    tunnel.output.on('data', (chunk: Buffer) => (text += chunk.toString()));
    api.pause();
    try {
      tunnel.input.write('frozen?');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(text).toBe('');
    } finally {
      api.resume();
    }
    expect(await eventually(async () => text, (t) => t === 'frozen?', 2000, 10)).toBe('frozen?');
    tunnel.ws.close();
    await tunnel.closed;
  });

  it('a server stopped while hung comes back answering', async () => {
    const core = client(config(api.kubeconfig({ auth: 'cert' })));
    api.pause();
    const pending = core.listNode().then(
      () => 'answered',
      () => 'failed',
    );
    // Held, not refused: the request has reached the hung server before it stops.
    await expect.poll(() => api.heldConnections, { timeout: 5000, interval: 10 }).toBeGreaterThan(0);
    await api.stop();
    expect(await pending).toBe('failed');
    await api.start();
    expect((await core.listNode()).items).toHaveLength(4);
  });
});
