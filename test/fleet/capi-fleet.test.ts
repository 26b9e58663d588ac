import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import type { ProbeCore } from '../../src/core/probe-core.ts';
import { CapiFleetFollower, capiEntries, waitingReason, type ClusterLister } from '../../src/fleet/capi-fleet.ts';
import { Fleet } from '../../src/fleet/fleet.ts';
import { RoundLimiter } from '../../src/fleet/round-limiter.ts';
import type { CapiClusterFacts } from '../../src/kube/capi-cluster-facts.ts';
import { toCapiClusterFacts } from '../../src/kube/capi-cluster-facts.ts';
import { shardOf } from '../../src/fleet/shard.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from '../helpers/log-sink.ts';

const base = (() => {
  const r = loadConfig({ env: { ETCD_PROBE_CAPI_CLUSTER: '*', ETCD_PROBE_MANAGEMENT_KUBECONFIG: '/dev/null' }, argv: [], now: new Date() });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join());
  return r.config;
})();

const facts = (name: string, over: Partial<CapiClusterFacts> = {}): CapiClusterFacts => ({ namespace: 'ns', name, paused: false, deleting: false, phase: 'Provisioned', controlPlaneReady: true, controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 }, ...over });

describe('Cluster API Clusters as fleet entries', () => {
  it('reads a listed object strictly: a name Kubernetes would refuse is left out', () => {
    expect(toCapiClusterFacts({ metadata: { namespace: 'a', name: 'b', deletionTimestamp: '2026-01-01T00:00:00Z', annotations: { 'cluster.x-k8s.io/paused': '' } }, status: { phase: 'Bogus', controlPlaneReady: true } })).toEqual({
      namespace: 'a',
      name: 'b',
      paused: true,
      deleting: true,
      phase: 'Unknown',
      controlPlaneReady: true,
      controlPlaneEndpoint: null,
    });
    expect(toCapiClusterFacts({ metadata: { namespace: 'a', name: '../x' } })).toBeNull();
    expect(toCapiClusterFacts({ metadata: { namespace: 'A', name: 'b' } })).toBeNull();
    expect(toCapiClusterFacts('nonsense')).toBeNull();
  });

  it('probes Provisioned and Failed clusters, waits for the others, and says why', () => {
    expect(waitingReason(facts('a'))).toBeNull();
    expect(waitingReason(facts('a', { phase: 'Failed', controlPlaneReady: false }))).toBeNull();
    expect(waitingReason(facts('a', { phase: 'Provisioning', controlPlaneReady: false }))).toBe('provisioning (phase Provisioning, control plane not ready yet)');
    expect(waitingReason(facts('a', { paused: true }))).toBe('paused');
    expect(waitingReason(facts('a', { paused: true, deleting: true }))).toBe('deleting');
    const [entry] = capiEntries([facts('prod')], base, null);
    expect(entry?.name).toBe('ns/prod');
    expect(entry?.config.capiCluster).toEqual({ namespace: 'ns', name: 'prod', controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } });
    // The kubeconfig is held to the endpoint the listing gave; a moved endpoint is a new revision (the entry is rebuilt).
    expect(capiEntries([facts('prod', { controlPlaneEndpoint: { host: '10.0.0.2', port: 6443 } })], base, null)[0]?.revision).not.toBe(entry?.revision);
  });

  it('follows the listings: adds, rebuilds a cluster that stops waiting, removes, and keeps the last good list when listing fails', async () => {
    let answer: CapiClusterFacts[] | Error = [facts('a'), facts('b', { phase: 'Provisioning', controlPlaneReady: false })];
    const lister: ClusterLister = { listCapiClusters: async () => (answer instanceof Error ? Promise.reject(answer) : answer) };
    const closed: string[] = [];
    const buildCore = async (entry: { name: string }): Promise<ProbeCore> => ({ prober: {} as ProbeCore['prober'], source: {} as ProbeCore['source'], dataChecker: null, close: async () => void closed.push(entry.name) });
    const logs = new LogSink();
    const fleet = new Fleet({ shard: { index: 0, count: 1 }, limiter: new RoundLimiter(2), logger: createLogger('info', logs), now: Date.now, minForcedIntervalMs: 1000, refreshMs: 60_000, idleCloseMs: 60_000, holdConnections: false, buildCore });
    const target = { fleet: true as const, namespace: null };
    const follower = new CapiFleetFollower({ lister, target, selector: null, fleet, base, inCluster: null, refreshMs: 60_000, bounds: { maxClusters: 1000, maxPerNamespace: 250 }, logger: createLogger('info', logs), now: Date.now });
    const names = () => fleet.slots.map((s) => `${s.entry.name}:${s.entry.waiting === null ? 'probed' : 'waiting'}`);

    await follower.sync();
    expect(names()).toEqual(['ns/a:probed', 'ns/b:waiting']);
    answer = [facts('a'), facts('b')];
    await follower.sync();
    expect(names()).toEqual(['ns/a:probed', 'ns/b:probed']);
    answer = new Error('list clusters.cluster.x-k8s.io in every namespace: forbidden');
    await follower.sync();
    expect(names()).toEqual(['ns/a:probed', 'ns/b:probed']);
    expect(follower.state.error).toBe('list clusters.cluster.x-k8s.io in every namespace: forbidden');
    answer = [facts('b')];
    await follower.sync();
    expect(names()).toEqual(['ns/b:probed']);
    expect(follower.state.error).toBeNull();
    await follower.close();
    await fleet.close();
  });
  it('follows at most the bounded Clusters, the oldest kept, reports the rest in its state and warns once per change', async () => {
    const flood = (n: number) => Array.from({ length: n }, (_, i) => facts(`new-${i}`, { namespace: 'noisy', createdAt: 1000 + i }));
    let answer: CapiClusterFacts[] = [facts('prod', { namespace: 'quiet', createdAt: 5 }), facts('old', { namespace: 'noisy', createdAt: 1 }), ...flood(10)];
    const lister: ClusterLister = { listCapiClusters: async () => answer };
    const buildCore = async (): Promise<ProbeCore> => ({ prober: {} as ProbeCore['prober'], source: {} as ProbeCore['source'], dataChecker: null, close: async () => undefined });
    const logs = new LogSink();
    const fleet = new Fleet({ shard: { index: 0, count: 1 }, limiter: new RoundLimiter(2), logger: createLogger('info', logs), now: Date.now, minForcedIntervalMs: 1000, refreshMs: 60_000, idleCloseMs: 60_000, holdConnections: false, buildCore });
    const follower = new CapiFleetFollower({ lister, target: { fleet: true as const, namespace: null }, selector: null, fleet, base, inCluster: null, refreshMs: 60_000, bounds: { maxClusters: 4, maxPerNamespace: 3 }, logger: createLogger('info', logs), now: Date.now });
    const leftOutWarnings = () => logs.at('warn').filter((l) => l.msg.startsWith('Clusters left out'));

    await follower.sync();
    expect(fleet.slots.map((s) => s.entry.name).sort()).toEqual(['noisy/new-0', 'noisy/new-1', 'noisy/old', 'quiet/prod']);
    expect(follower.state.leftOut).toEqual([{ namespace: 'noisy', count: 8, bound: 'namespace' }]);
    expect(leftOutWarnings()).toHaveLength(1);
    await follower.sync();
    expect(leftOutWarnings()).toHaveLength(1);
    answer = [...answer, ...flood(20)];
    await follower.sync();
    expect(fleet.slots.map((s) => s.entry.name)).toContain('quiet/prod');
    expect(follower.state.leftOut).toEqual([{ namespace: 'noisy', count: 28, bound: 'namespace' }]);
    expect(leftOutWarnings()).toHaveLength(2);
    answer = answer.slice(0, 2);
    await follower.sync();
    expect(follower.state.leftOut).toEqual([]);
    expect(logs.at('info').some((l) => l.msg === 'no Clusters left out of the fleet any more')).toBe(true);
    await follower.close();
    await fleet.close();
  });
  it('hashes a Cluster to its shard by uid, not by the name its creator chose (issue 25, hole 3)', () => {
    const uid = '0b7e6c1a-4f2d-4c1e-9a3b-2d1f0e9c8b7a';
    expect(toCapiClusterFacts({ metadata: { namespace: 'a', name: 'b', uid } })?.uid).toBe(uid);
    expect(toCapiClusterFacts({ metadata: { namespace: 'a', name: 'b', uid: 'Not A UID' } })).not.toHaveProperty('uid');
    const [withUid] = capiEntries([facts('prod', { uid })], base, null);
    expect(withUid?.shardKey).toBe(uid);
    // 64 names, one uid each: the owners follow the uids, so a creator choosing names cannot pick a shard.
    const clusters = Array.from({ length: 64 }, (_, i) => facts(`same-shard-${i}`, { uid: `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000` }));
    const owners = capiEntries(clusters, base, null).map((e) => shardOf(e.shardKey ?? e.name, 2));
    expect(owners).toEqual(clusters.map((c) => shardOf(c.uid as string, 2)));
    expect(new Set(owners).size).toBe(2);
    // A Cluster recreated under the same name is rebuilt.
    expect(capiEntries([facts('prod', { uid: 'aa' })], base, null)[0]?.revision).not.toBe(withUid?.revision);
  });
});
