import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintClientCertificate } from '../../src/tls/mint-client-certificate.ts';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { capiReaderRules } from '#lab/kube-apiserver/auth.ts';
import { FakeFleet, type FleetCluster } from '#lab/kube-apiserver/fake-fleet.ts';
import { KUBE_TOOL_RELEASES, kubeTools, type KubeTools } from '#lab/kube-tools/kube-tools.ts';
import { eventually } from '../helpers/http.ts';

// Real kubectl (1.31.9 and 1.35.2) against the Cluster API fleet STAND-IN: Clusters listed in the
// management cluster as the fleet reader, each workload cluster's kubeconfig and etcd CA taken from its
// Secrets with kubectl itself, nodes and pods listed in two workload clusters through their own API
// servers (a server URL with a path), and `kubectl port-forward` to a workload's etcd pod carrying an
// etcd client whose certificate is minted from that cluster's CA through the stand-in's TLS relay to a
// real etcd member; a certificate from another cluster's CA is refused there.

let a: EtcdCluster;
let b: EtcdCluster;
let fleet: FakeFleet;
let dir: string;
let readerKubeconfig: string;
const children = new Set<ChildProcess>();

interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Lines of a kubectl table, split on its column padding. */
function table(text: string): string[][] {
  return text.trim().split('\n').map((line) => line.trim().split(/\s{2,}/));
}

beforeAll(async () => {
  [a, b] = await Promise.all([EtcdCluster.start({ size: 1, tls: true }), EtcdCluster.start({ size: 1, tls: true })]);
  // cluster-001 (team-a, A), cluster-002 (team-b, B), cluster-003 (team-a, A).
  fleet = await FakeFleet.start({ backends: [a, b], clusters: 3, namespaces: ['team-a', 'team-b'] });
  fleet.setPhase('team-a', 'cluster-003', 'Provisioning');
  dir = mkdtempSync(join(tmpdir(), 'fake-fleet-kubectl-'));
  readerKubeconfig = await fleet.api.writeKubeconfig(dir, { auth: 'token', token: fleet.api.addUser('system:serviceaccount:monitoring:etcd-probe', capiReaderRules('*')) });
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await fleet?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(KUBE_TOOL_RELEASES)('kubectl $kubectlVersion against the fleet stand-in', (release) => {
  let tools: KubeTools;
  let home: string;

  beforeAll(() => {
    tools = kubeTools(release.id);
    home = mkdtempSync(join(dir, `${release.id}-`));
  });

  function kubectl(kubeconfig: string, args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        tools.kubectl,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(home, 'cache'), '--request-timeout', '20s', ...args],
        { env: { HOME: home, PATH: process.env.PATH ?? '' }, timeout: 30_000, encoding: 'utf8' },
        (error, stdout, stderr) => resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  /** The workload cluster's kubeconfig, as kubectl reads it from the management cluster's `<name>-kubeconfig` Secret. */
  async function workloadKubeconfig(namespace: string, name: string): Promise<string> {
    const run = await kubectl(readerKubeconfig, ['get', 'secret', `${name}-kubeconfig`, '-n', namespace, '-o', 'jsonpath={.data.value}']);
    expect(run.status, run.stderr).toBe(0);
    const path = join(home, `${namespace}-${name}.kubeconfig`);
    writeFileSync(path, Buffer.from(run.stdout, 'base64'), { mode: 0o600 });
    return path;
  }

  it('lists Clusters across namespaces with the CRD printer columns; the reader may not list Secrets', async () => {
    const run = await kubectl(readerKubeconfig, ['get', 'clusters.cluster.x-k8s.io', '-A']);
    expect(run.stderr).toBe('');
    const [head, ...rows] = table(run.stdout);
    expect(head).toEqual(['NAMESPACE', 'NAME', 'CLUSTERCLASS', 'PHASE', 'AGE', 'VERSION']);
    expect(rows).toEqual([
      ['team-a', 'cluster-001', 'Provisioned', '60m'],
      ['team-a', 'cluster-003', 'Provisioning', '60m'],
      ['team-b', 'cluster-002', 'Provisioned', '60m'],
    ]);
    const short = await kubectl(readerKubeconfig, ['get', 'cl', '-n', 'team-b', '-o', 'name']);
    expect(short.stdout.trim()).toBe('cluster.cluster.x-k8s.io/cluster-002');
    const secrets = await kubectl(readerKubeconfig, ['get', 'secrets', '-n', 'team-a']);
    expect(secrets.stderr).toContain('secrets is forbidden: User "system:serviceaccount:monitoring:etcd-probe" cannot list resource "secrets" in API group "" in the namespace "team-a"');
  });

  it("lists each workload cluster's nodes and etcd pods through the kubeconfig from its Secret", async () => {
    for (const [namespace, name, backend] of [
      ['team-a', 'cluster-001', a],
      ['team-b', 'cluster-002', b],
    ] as const) {
      const kubeconfig = await workloadKubeconfig(namespace, name);
      const nodes = await kubectl(kubeconfig, ['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations.cluster\\.x-k8s\\.io/cluster-name}{"\\n"}{end}']);
      expect(nodes.status, nodes.stderr).toBe(0);
      expect(nodes.stdout.trim()).toBe(`${backend.members[0]!.name} ${name}`);
      const pods = await kubectl(kubeconfig, ['get', 'pods', '-n', 'kube-system']);
      expect(pods.status, pods.stderr).toBe(0);
      expect(table(pods.stdout).map((r) => r.slice(0, 3))).toEqual([
        ['NAME', 'READY', 'STATUS'],
        [`etcd-${backend.members[0]!.name}`, '1/1', 'Running'],
      ]);
    }
    expect(fleet.api.requests.some((r) => r.path === '/workloads/team-b/cluster-002/api/v1/namespaces/kube-system/pods' && r.status === 200)).toBe(true);
  });

  it("port-forwards to a workload's etcd pod: its own CA's certificate reaches the real member, another cluster's is refused", async () => {
    const one = fleet.cluster('team-a', 'cluster-001') as FleetCluster;
    const three = fleet.cluster('team-a', 'cluster-003') as FleetCluster;
    const kubeconfig = await workloadKubeconfig('team-a', 'cluster-001');
    const ca = await kubectl(readerKubeconfig, ['get', 'secret', 'cluster-001-etcd', '-n', 'team-a', '-o', 'jsonpath={.data.tls\\.crt}']);
    const caCert = Buffer.from(ca.stdout, 'base64');
    const child = spawn(tools.kubectl, ['--kubeconfig', kubeconfig, '--cache-dir', join(home, 'cache'), '-n', 'kube-system', 'port-forward', `pod/etcd-${a.members[0]!.name}`, ':2379'], {
      env: { HOME: home, PATH: process.env.PATH ?? '' },
    });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const port = await eventually(async () => /Forwarding from 127\.0\.0\.1:(\d+) -> 2379/.exec(output)?.[1], (p) => p !== undefined, 20_000, 50);
    if (!port) throw new Error(`kubectl port-forward did not listen:\n${output}`);

    const client = async (from: FleetCluster) => {
      const minted = await mintClientCertificate({ caCert: Buffer.from(from.etcdCa.cert), caKey: Buffer.from(from.etcdCa.key), commonName: 'etcd-probe', now: Date.now() });
      return new Etcd3({
        hosts: `https://127.0.0.1:${port}`,
        credentials: { rootCertificate: caCert, certChain: minted.cert, privateKey: minted.key },
        faultHandling: { host: () => noop, global: noop },
        dialTimeout: 5000,
      });
    };
    const own = await client(one);
    const foreign = await client(three);
    try {
      const status = await own.maintenance.status();
      const direct = a.client(0);
      try {
        expect(status.header.member_id).toBe((await direct.maintenance.status()).header.member_id);
      } finally {
        direct.close();
      }
      one.tlsFailures.length = 0;
      await expect(foreign.maintenance.status()).rejects.toThrow();
      expect(one.tlsFailures).toContain('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    } finally {
      own.close();
      foreign.close();
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    children.delete(child);
  });

  it('shows a cluster added at run time, and no longer one removed', async () => {
    fleet.addCluster('team-c', `added-${release.id}`);
    const added = await kubectl(readerKubeconfig, ['get', 'clusters.cluster.x-k8s.io', '-n', 'team-c', '-o', 'name']);
    expect(added.stdout.trim()).toBe(`cluster.cluster.x-k8s.io/added-${release.id}`);
    const kubeconfig = await workloadKubeconfig('team-c', `added-${release.id}`);
    expect((await kubectl(kubeconfig, ['get', 'nodes', '-o', 'name'])).status).toBe(0);
    fleet.removeCluster('team-c', `added-${release.id}`);
    const gone = await kubectl(readerKubeconfig, ['get', 'clusters.cluster.x-k8s.io', '-n', 'team-c']);
    expect(gone.stdout).toBe('');
    expect(gone.stderr).toBe('No resources found in team-c namespace.\n');
    // (Its API server is gone too, and resets connections: client-go retries a reset GET for ~10 s, so
    // test/integration/fake-fleet.test.ts proves that with client-node.)
  });
});
