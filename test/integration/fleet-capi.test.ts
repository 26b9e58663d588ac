import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { capiFleetRules } from '#lab/kube-apiserver/auth.ts';
import { FakeFleet } from '#lab/kube-apiserver/fake-fleet.ts';
import { capiSecret } from '#lab/kube-apiserver/secrets.ts';
import { allowingStandIn } from '../helpers/allowing-stand-in.ts';
import { eventually, get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startFleet, type RunningFleet } from '../helpers/start-fleet.ts';

// Fleet mode following a Cluster API management cluster: the kube-apiserver STAND-IN's FakeFleet
// (lab/kube-apiserver/fake-fleet.ts) serves the Clusters and their Secrets, and each
// workload cluster's port-forward reaches a real etcd member (one real 3-member TLS cluster backs them
// all) through a TLS relay showing that cluster's own etcd CA. The service reads the management cluster
// as a least-privilege fleet reader (list Clusters, get Secrets), as the chart grants it. Clusters are added,
// paused, provisioning and deleted while it runs; the fleet follows within a listing interval.

let backend: EtcdCluster;
let fleet: FakeFleet;
let dir: string;
let service: RunningFleet;

type Row = { name: string; state: string; status: string | null; waiting: string | null };

async function rows(): Promise<Row[]> {
  return (await get(`${service.url}/clusters`)).body.clusters;
}

beforeAll(async () => {
  backend = await EtcdCluster.start({ size: 3, tls: true });
  fleet = await FakeFleet.start({ backends: [backend], clusters: 2, namespaces: ['team-a', 'team-b'] });
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-fleet-capi-'));
  const kubeconfig = await fleet.api.writeKubeconfig(dir, { auth: 'token', token: fleet.api.addUser('system:serviceaccount:monitoring:etcd-probe', capiFleetRules('*')) });
  service = await startFleet({ ...allowingStandIn(), ETCD_PROBE_CAPI_CLUSTER: '*', ETCD_PROBE_MANAGEMENT_KUBECONFIG: kubeconfig, ETCD_PROBE_FLEET_REFRESH: '1s', ETCD_PROBE_CACHE_TTL: '500ms' });
}, 120_000);

afterAll(async () => {
  await service?.close();
  await fleet?.close();
  await backend?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a Cluster API fleet', () => {
  it("lists the management cluster's Clusters and probes each through its own kubeconfig and etcd CA", async () => {
    const listed = await eventually(rows, (r) => r.length === 2 && r.every((c) => c.status === 'healthy'), 30_000, 200);
    expect(listed.map((c) => [c.name, c.state, c.status])).toEqual([
      ['team-a/cluster-001', 'probed', 'healthy'],
      ['team-b/cluster-002', 'probed', 'healthy'],
    ]);
    const list = await get(`${service.url}/clusters`);
    expect(checkResponse('get', '/clusters', list)).toEqual([]);
    expect(list.body.discovery).toMatchObject({ error: null });
    const healthz = await get(`${service.url}/clusters/team-a%2Fcluster-001/healthz/etcd`);
    expect(healthz.status).toBe(200);
    expect(healthz.body).toMatchObject({ status: 'healthy', mode: 'capi', kubernetes: { cluster: 'team-a/cluster-001', transport: 'port-forward' } });
    const members = await get(`${service.url}/clusters/team-b%2Fcluster-002/members`);
    expect(members.body.members.map((m: { name: string }) => m.name).sort()).toEqual(backend.members.map((m) => m.name).sort());
  });

  it("exports each cluster's client-certificate expiry, minted from its <cluster>-etcd CA, as the single-cluster service does", async () => {
    // One cluster runtime (src/cluster/cluster-runtime.ts) for both modes: before it, only app.ts exported
    // the expiry of credentials a source obtains itself, and a fleet's Cluster API clusters exported none.
    const expiries = async () => {
      const text = (await get(`${service.url}/metrics`)).text as string;
      const series = [...text.matchAll(/^etcd_probe_tls_cert_not_after_seconds\{([^}]*)\} (\S+)$/gm)].filter((m) => m[1]?.includes('credentials="etcd-client"'));
      return Object.fromEntries(series.map((m) => [/cluster="([^"]+)"/.exec(m[1] ?? '')?.[1], Number(m[2]) * 1000 - Date.now()]));
    };
    // Both clusters are probed within a refresh (1 s); the series may wait for nothing else.
    await eventually(rows, (r) => r.filter((c) => c.status === 'healthy').length === 2, 30_000, 200);
    const byCluster = await eventually(expiries, (e) => Object.keys(e).length === 2, 5_000, 200);
    expect(Object.keys(byCluster).sort()).toEqual(['team-a/cluster-001', 'team-b/cluster-002']);
    // Minted for 24 h at the cluster's first round.
    for (const left of Object.values(byCluster)) {
      expect(left).toBeGreaterThan(23 * 3_600_000);
      expect(left).toBeLessThan(24 * 3_600_000);
    }
  });

  it('follows Clusters as they are added, provisioning, paused, deleting and removed', async () => {
    fleet.addCluster('team-a', 'cluster-new');
    fleet.addCluster('team-b', 'cluster-young', { phase: 'Provisioning', controlPlaneReady: false });
    const added = await eventually(rows, (r) => r.find((c) => c.name === 'team-a/cluster-new')?.status === 'healthy' && r.some((c) => c.name === 'team-b/cluster-young'), 30_000, 200);
    expect(added.find((c) => c.name === 'team-b/cluster-young')).toMatchObject({ state: 'waiting', status: null, waiting: expect.stringContaining('provisioning (phase Provisioning') });
    const young = await get(`${service.url}/clusters/team-b%2Fcluster-young/healthz/etcd`);
    expect(young.status).toBe(503);
    expect(young.body.error).toBe('CLUSTER_NOT_PROBED');
    expect(checkResponse('get', '/clusters/{cluster}/healthz/etcd', young)).toEqual([]);

    // Its control plane comes up: it is probed from the next listing on.
    fleet.setPhase('team-b', 'cluster-young', 'Provisioned');
    const provisioned = await eventually(rows, (r) => r.find((c) => c.name === 'team-b/cluster-young')?.status === 'healthy', 30_000, 200);
    expect(provisioned.find((c) => c.name === 'team-b/cluster-young')).toMatchObject({ state: 'probed', status: 'healthy' });

    fleet.pause('team-a', 'cluster-001');
    fleet.startDeleting('team-b', 'cluster-002');
    const held = await eventually(rows, (r) => r.find((c) => c.name === 'team-a/cluster-001')?.waiting === 'paused' && r.find((c) => c.name === 'team-b/cluster-002')?.waiting === 'deleting', 30_000, 200);
    expect(held.filter((c) => c.state === 'waiting').map((c) => c.name)).toEqual(['team-a/cluster-001', 'team-b/cluster-002']);

    fleet.removeCluster('team-b', 'cluster-002');
    const removed = await eventually(rows, (r) => !r.some((c) => c.name === 'team-b/cluster-002'), 30_000, 200);
    expect(removed.map((c) => c.name)).toEqual(['team-a/cluster-001', 'team-a/cluster-new', 'team-b/cluster-young']);
    const gone = await get(`${service.url}/clusters/team-b%2Fcluster-002/healthz/etcd`);
    expect(gone.body.error).toBe('CLUSTER_NOT_FOUND');
    // The metrics follow: the removed cluster's series are gone, the others are labelled.
    const metrics = await get(`${service.url}/metrics`);
    expect(metrics.text).not.toContain('cluster="team-b/cluster-002"');
    expect(metrics.text).toMatch(/^etcd_probe_cluster_status\{cluster="team-a\/cluster-new",status="healthy"\} 1$/m);
  });
});

// Issue 25, hole 1: a tenant's kubeconfig Secret naming another host:port than its Cluster's
// controlPlaneEndpoint. The cluster is not probed, its /clusters row says why, and nothing connects there.
describe("a tenant's kubeconfig that names another server than its Cluster", () => {
  it('is not used: KUBE_API_NOT_ALLOWED in the /clusters row, and no connection to that server', async () => {
    let accepted = 0;
    const elsewhere = createServer((socket) => {
      accepted++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      const port = (elsewhere.address() as { port: number }).port;
      const cluster = fleet.addCluster('team-a', 'cluster-ssrf');
      const moved = cluster.workload.kubeconfig().replace(`https://127.0.0.1:${fleet.api.port}`, `https://127.0.0.1:${port}`);
      expect(moved).not.toBe(cluster.workload.kubeconfig());
      fleet.api.upsertSecret(capiSecret('team-a', 'cluster-ssrf', 'kubeconfig', { value: moved }));
      type Listed = Row & { reasons: string[] };
      const listed = (await eventually(
        async () => (await rows()) as Listed[],
        (r) => r.find((c) => c.name === 'team-a/cluster-ssrf')?.reasons.includes('KUBE_API_NOT_ALLOWED') === true,
        30_000,
        200,
      )).find((c) => c.name === 'team-a/cluster-ssrf');
      expect(listed).toMatchObject({ state: 'probed', status: 'unhealthy' });
      const healthz = await get(`${service.url}/clusters/team-a%2Fcluster-ssrf/healthz/etcd`);
      const reason = healthz.body.reasons.find((r: { code: string }) => r.code === 'KUBE_API_NOT_ALLOWED');
      expect(reason.message).toContain(`(127.0.0.1:${port}) is not Cluster team-a/cluster-ssrf's spec.controlPlaneEndpoint (127.0.0.1:${fleet.api.port})`);
      expect(accepted).toBe(0);
    } finally {
      fleet.removeCluster('team-a', 'cluster-ssrf');
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
  });
});

// Issue 25, a low of 7: a Cluster's key, namespace/name, may be 63 + 1 + 253 = 317 characters; the router
// took path parameters of at most 256, so such a cluster could not be addressed.
describe('a Cluster whose key is as long as Kubernetes allows (317 characters)', () => {
  it('is answered under /clusters/{cluster}, as listed', async () => {
    const namespace = `ns-${'n'.repeat(60)}`;
    const name = `c-${'x'.repeat(240)}.${'y'.repeat(10)}`;
    expect(`${namespace}/${name}`).toHaveLength(317);
    fleet.addCluster(namespace, name);
    try {
      await eventually(rows, (r) => r.find((c) => c.name === `${namespace}/${name}`)?.status === 'healthy', 30_000, 200);
      const healthz = await get(`${service.url}/clusters/${encodeURIComponent(`${namespace}/${name}`)}/healthz/etcd`);
      expect([healthz.status, healthz.body.status]).toEqual([200, 'healthy']);
      const tooLong = await get(`${service.url}/clusters/${'z'.repeat(321)}/healthz/etcd`);
      expect([tooLong.status, tooLong.body.error]).toEqual([414, 'URI_TOO_LONG']);
    } finally {
      fleet.removeCluster(namespace, name);
    }
  });
});
