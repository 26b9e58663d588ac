import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { etcdPod } from '#lab/kube-apiserver/etcd-pods.ts';
import { controlPlaneNode } from '#lab/kube-apiserver/nodes.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';
import { KUBE_TOOL_RELEASES, kubeTools, type KubeTools } from '#lab/kube-tools/kube-tools.ts';
import { eventually } from '../helpers/http.ts';

// Real kubectl (1.31.9 and 1.35.2, fetched by lab/kube-tools/kube-tools.ts) against the kube-apiserver
// stand-in: discovery, server-side printing (Tables), Status errors, and `kubectl port-forward` to a real
// etcd member over kubectl's default protocol (SPDY tunnelled in a WebSocket) and over its fallback (an
// HTTP upgrade to SPDY/3.1), proven by an etcd client talking TLS through the forwarded port.

let cluster: EtcdCluster;
let api: FakeKubeApiServer;
let dir: string;
let kubeconfig: string;
let memberId: string;
const children = new Set<ChildProcess>();

interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1, tls: true });
  api = await FakeKubeApiServer.start();
  dir = mkdtempSync(join(tmpdir(), 'fake-kube-kubectl-'));
  // Two days old: kubectl prints the age as "2d" for the next hour.
  const createdAt = new Date(Date.now() - 48 * 3600_000);
  const [cp1, cp2] = [controlPlaneNode('cp-1', { createdAt }), controlPlaneNode('cp-2', { ready: false, createdAt })];
  api.upsertNode(cp1);
  api.upsertNode(cp2);
  const url = new URL(cluster.member(0).clientUrl);
  api.upsertPod(etcdPod(cp1, { backend: { host: url.hostname, port: Number(url.port) } }));
  api.upsertPod(etcdPod(cp2, { ready: false }));
  api.upsertSecret('default', 'probe-token', { token: 'stand-in' });
  api.upsertSecret('kube-system', 'etcd-probe-client', { 'ca.crt': 'c', 'tls.crt': 'c', 'tls.key': 'k' });
  kubeconfig = await api.writeKubeconfig(dir, { auth: 'cert' });
  const direct = cluster.client(0);
  try {
    memberId = (await direct.maintenance.status()).header.member_id;
  } finally {
    direct.close();
  }
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await api?.close();
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(KUBE_TOOL_RELEASES)('kubectl $kubectlVersion against the stand-in', (release) => {
  let tools: KubeTools;
  let home: string;

  beforeAll(() => {
    tools = kubeTools(release.id);
    home = mkdtempSync(join(dir, `${release.id}-`));
  });

  const base = () => ['--kubeconfig', kubeconfig, '--cache-dir', join(home, 'cache'), '--request-timeout', '20s'];
  const env = (extra: Record<string, string> = {}) => ({ HOME: home, PATH: process.env.PATH ?? '', ...extra });

  function kubectl(args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(tools.kubectl, [...base(), ...args], { env: env(), timeout: 30_000, encoding: 'utf8' }, (error, stdout, stderr) =>
        resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  /** Lines of a kubectl table, split on its column padding. */
  function table(text: string): string[][] {
    return text.trim().split('\n').map((line) => line.trim().split(/\s{2,}/));
  }

  it('gets nodes: discovery first, then a Table with status, roles, age and version', async () => {
    api.requests.length = 0;
    const run = await kubectl(['get', 'nodes']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const [head, ...rows] = table(run.stdout);
    expect(head).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(rows).toEqual([
      ['cp-1', 'Ready', 'control-plane', '2d', 'v1.31.4'],
      ['cp-2', 'NotReady', 'control-plane', '2d', 'v1.31.4'],
    ]);
    expect(api.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /api 200', 'GET /apis 200', 'GET /api/v1/nodes 200']);
  });

  it('gets the etcd pods in kube-system, and wide output adds their IP and node', async () => {
    const run = await kubectl(['get', 'pods', '-n', 'kube-system', '-o', 'wide']);
    expect(run.status, run.stderr).toBe(0);
    const [head, ...rows] = table(run.stdout);
    expect(head?.slice(0, 7)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE']);
    expect(rows.map((r) => [r[0], r[1], r[2], r[3], r[6]])).toEqual([
      ['etcd-cp-1', '1/1', 'Running', '0', 'cp-1'],
      ['etcd-cp-2', '0/1', 'Running', '0', 'cp-2'],
    ]);
  });

  it('gets secrets in the default namespace, and -o json gives the objects themselves', async () => {
    const run = await kubectl(['get', 'secrets']);
    expect(run.status, run.stderr).toBe(0);
    expect(table(run.stdout).map((r) => r.slice(0, 3))).toEqual([
      ['NAME', 'TYPE', 'DATA'],
      ['probe-token', 'Opaque', '1'],
    ]);
    const json = await kubectl(['get', 'secret', 'etcd-probe-client', '-n', 'kube-system', '-o', 'json']);
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'Secret', type: 'kubernetes.io/tls', data: { 'tls.key': Buffer.from('k').toString('base64') } });
  });

  it("prints the API server's Forbidden and NotFound messages, and knows which resource types exist", async () => {
    const token = api.addUser('system:serviceaccount:probes:etcd-probe', [{ verbs: ['get'], resources: ['secrets'], namespace: 'default', resourceNames: ['probe-token'] }]);
    const limited = await api.writeKubeconfig(mkdtempSync(join(home, 'limited-')), { auth: 'token', token });
    const list = await kubectl(['--kubeconfig', limited, 'get', 'secrets']);
    expect(list.status).not.toBe(0);
    expect(list.stderr).toContain(
      'Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:probes:etcd-probe" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
    expect((await kubectl(['--kubeconfig', limited, 'get', 'secret', 'probe-token'])).status).toBe(0);
    expect((await kubectl(['get', 'node', 'cp-9'])).stderr).toContain('Error from server (NotFound): nodes "cp-9" not found');
    expect((await kubectl(['get', 'configmaps'])).stderr).toContain('the server doesn\'t have a resource type "configmaps"');
  });

  it.each([
    ['a WebSocket tunnel (the default)', {}, 'GET'],
    ['an HTTP upgrade to SPDY/3.1 (KUBECTL_PORT_FORWARD_WEBSOCKETS=false)', { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }, 'POST'],
  ] as [string, Record<string, string>, string][])('port-forwards pod/etcd-cp-1 :2379 to the real etcd over %s', async (_how, extraEnv, method) => {
    const pki = cluster.pki;
    if (!pki) throw new Error('the cluster has no PKI');
    api.requests.length = 0;
    const bytesBefore = api.tunnelBytes.fromPods;
    const child = spawn(tools.kubectl, [...base(), '-n', 'kube-system', 'port-forward', 'pod/etcd-cp-1', ':2379'], { env: env(extraEnv) });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const listening = await eventually(async () => /Forwarding from 127\.0\.0\.1:(\d+) -> 2379/.exec(output)?.[1], (p) => p !== undefined, 20_000, 50);
    if (!listening) throw new Error(`kubectl port-forward did not listen:\n${output}`);

    const etcd = new Etcd3({
      hosts: `https://127.0.0.1:${listening}`,
      credentials: { rootCertificate: readFileSync(pki.caFile), certChain: readFileSync(pki.clientCertFile), privateKey: readFileSync(pki.clientKeyFile) },
      faultHandling: { host: () => noop, global: noop },
    });
    try {
      const status = await etcd.maintenance.status();
      expect(status.header.member_id).toBe(memberId);
      expect(status.version).toMatch(/^3\./);
      const members = await etcd.cluster.memberList({});
      expect(members.members.map((m) => m.name)).toEqual([cluster.member(0).name]);
    } finally {
      etcd.close();
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    children.delete(child);

    expect(api.requests.filter((r) => r.upgrade).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `${method} /api/v1/namespaces/kube-system/pods/etcd-cp-1/portforward 101`,
    ]);
    const left = await eventually(async () => [api.openTunnels, api.openBackendSockets], (c) => c.every((n) => n === 0), 5000, 20);
    expect(left).toEqual([0, 0]);
    expect(api.tunnelBytes.fromPods).toBeGreaterThan(bytesBefore);
  });
});
