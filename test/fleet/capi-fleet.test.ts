import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import type { ProbeCore } from '../../src/core/probe-core.ts';
import { CapiFleetFollower, capiEntries, waitingReason, type ClusterLister } from '../../src/fleet/capi-fleet.ts';
import { Fleet } from '../../src/fleet/fleet.ts';
import { RoundLimiter } from '../../src/fleet/round-limiter.ts';
import type { CapiClusterFacts } from '../../src/kube/capi-cluster-facts.ts';
import { toCapiClusterFacts } from '../../src/kube/capi-cluster-facts.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from '../helpers/log-sink.ts';

const base = (() => {
  const r = loadConfig({ env: { ETCD_PROBE_CAPI_CLUSTER: '*', ETCD_PROBE_MANAGEMENT_KUBECONFIG: '/dev/null' }, argv: [], now: new Date() });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join());
  return r.config;
})();

const facts = (name: string, over: Partial<CapiClusterFacts> = {}): CapiClusterFacts => ({ namespace: 'ns', name, paused: false, deleting: false, phase: 'Provisioned', controlPlaneReady: true, ...over });

describe('Cluster API Clusters as fleet entries', () => {
  it('reads a listed object strictly: a name Kubernetes would refuse is left out', () => {
    expect(toCapiClusterFacts({ metadata: { namespace: 'a', name: 'b', deletionTimestamp: '2026-01-01T00:00:00Z', annotations: { 'cluster.x-k8s.io/paused': '' } }, status: { phase: 'Bogus', controlPlaneReady: true } })).toEqual({
      namespace: 'a',
      name: 'b',
      paused: true,
      deleting: true,
      phase: 'Unknown',
      controlPlaneReady: true,
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
    expect(entry?.config.capiCluster).toEqual({ namespace: 'ns', name: 'prod' });
  });

  it('follows the listings: adds, rebuilds a cluster that stops waiting, removes, and keeps the last good list when listing fails', async () => {
    let answer: CapiClusterFacts[] | Error = [facts('a'), facts('b', { phase: 'Provisioning', controlPlaneReady: false })];
    const lister: ClusterLister = { listCapiClusters: async () => (answer instanceof Error ? Promise.reject(answer) : answer) };
    const closed: string[] = [];
    const buildCore = async (entry: { name: string }): Promise<ProbeCore> => ({ prober: {} as ProbeCore['prober'], source: {} as ProbeCore['source'], dataChecker: null, close: async () => void closed.push(entry.name) });
    const logs = new LogSink();
    const fleet = new Fleet({ shard: { index: 0, count: 1 }, limiter: new RoundLimiter(2), logger: createLogger('info', logs), now: Date.now, minForcedIntervalMs: 1000, refreshMs: 60_000, idleCloseMs: 60_000, holdConnections: false, buildCore });
    const target = { fleet: true as const, namespace: null };
    const follower = new CapiFleetFollower({ lister, target, selector: null, fleet, base, inCluster: null, refreshMs: 60_000, logger: createLogger('info', logs), now: Date.now });
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
});
