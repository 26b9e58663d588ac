import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { capiFleetRules } from '#lab/kube-apiserver/auth.ts';
import { FakeFleet } from '#lab/kube-apiserver/fake-fleet.ts';
import { eventually, get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startFleet, type RunningFleet } from '../helpers/start-fleet.ts';

// Issue 25, hole 3: a tenant creating Clusters in its namespace grew the fleet without bound. With
// ETCD_PROBE_FLEET_MAX_CLUSTERS_PER_NAMESPACE=3 the flooding namespace keeps its 3 oldest Clusters, the
// other tenant's Cluster stays followed, and the excess is reported in /clusters and /metrics.

let backend: EtcdCluster;
let fleet: FakeFleet;
let dir: string;
let service: RunningFleet;

const names = async (): Promise<string[]> => (await get(`${service.url}/clusters`)).body.clusters.map((c: { name: string }) => c.name);

beforeAll(async () => {
  backend = await EtcdCluster.start({ size: 1, tls: true });
  fleet = await FakeFleet.start({ backends: [backend], clusters: 0 });
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-fleet-bounds-'));
  const kubeconfig = await fleet.api.writeKubeconfig(dir, { auth: 'token', token: fleet.api.addUser('system:serviceaccount:monitoring:etcd-probe', capiFleetRules('*')) });
  service = await startFleet({ ETCD_PROBE_CAPI_CLUSTER: '*', ETCD_PROBE_MANAGEMENT_KUBECONFIG: kubeconfig, ETCD_PROBE_FLEET_REFRESH: '1s', ETCD_PROBE_FLEET_MAX_CLUSTERS_PER_NAMESPACE: '3', ETCD_PROBE_FLEET_MAX_CLUSTERS: '100' });
}, 120_000);

afterAll(async () => {
  await service?.close();
  await fleet?.close();
  await backend?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fleet bounds', () => {
  it('a namespace creating 40 new Clusters keeps its oldest followed, cannot push out another tenant, and the excess is reported', async () => {
    fleet.addCluster('quiet', 'prod');
    fleet.addCluster('noisy', 'zz-old');
    await eventually(names, (n) => n.length === 2, 30_000, 200);
    // creationTimestamp has whole seconds: let the flood be younger than the clusters already followed.
    const followedAt = Math.floor(Date.now() / 1000);
    await eventually(async () => Math.floor(Date.now() / 1000), (s) => s > followedAt, 5_000, 50);
    for (let i = 0; i < 40; i++) fleet.addCluster('noisy', `a-${String(i).padStart(2, '0')}`);

    const list = await eventually(() => get(`${service.url}/clusters`), (r) => r.body.discovery?.clustersLeftOut?.length === 1, 30_000, 200);
    expect(checkResponse('get', '/clusters', list)).toEqual([]);
    expect(list.body.discovery.clustersLeftOut).toEqual([{ namespace: 'noisy', count: 38, bound: 'namespace' }]);
    expect(list.body.clusters.map((c: { name: string }) => c.name)).toEqual(['noisy/a-00', 'noisy/a-01', 'noisy/zz-old', 'quiet/prod']);
    const metrics = await get(`${service.url}/metrics`);
    expect(String(metrics.body)).toMatch(/^etcd_probe_fleet_left_out_clusters\{bound="namespace"\} 38$/m);
    expect(String(metrics.body)).toMatch(/^etcd_probe_fleet_left_out_clusters\{bound="fleet"\} 0$/m);
    expect(service.logs.at('warn').filter((l) => l.msg.startsWith('Clusters left out'))).toHaveLength(1);
  }, 60_000);
});
