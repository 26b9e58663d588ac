import { describe, expect, it } from 'vitest';
import { boundClusters, historyShare, leftOutByBound, leftOutKey, MIN_HISTORY_BYTES } from '../../src/fleet/cluster-bounds.ts';
import type { CapiClusterFacts } from '../../src/kube/capi-cluster-facts.ts';
import { toCapiClusterFacts } from '../../src/kube/capi-cluster-facts.ts';

const facts = (namespace: string, name: string, createdAt?: number): CapiClusterFacts => ({ namespace, name, paused: false, deleting: false, phase: 'Provisioned', controlPlaneReady: true, controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 }, ...(createdAt === undefined ? {} : { createdAt }) });
const names = (cs: readonly CapiClusterFacts[]): string[] => cs.map((c) => `${c.namespace}/${c.name}`);

describe('boundClusters', () => {
  it('keeps everything under the bounds, in listing order', () => {
    const cs = [facts('b', 'x', 2), facts('a', 'y', 1)];
    expect(boundClusters(cs, { maxClusters: 10, maxPerNamespace: 10 })).toEqual({ kept: cs, leftOut: [] });
  });

  it('keeps the oldest of a namespace: new Clusters cannot push out followed ones', () => {
    const old = [facts('t', 'old-1', 100), facts('t', 'old-2', 200)];
    const flood = Array.from({ length: 50 }, (_, i) => facts('t', `a-${i}`, 1000 + i));
    const { kept, leftOut } = boundClusters([...flood, ...old], { maxClusters: 1000, maxPerNamespace: 3 });
    expect(names(kept)).toEqual(['t/a-0', 't/old-1', 't/old-2']);
    expect(leftOut).toEqual([{ namespace: 't', count: 49, bound: 'namespace' }]);
  });

  it('one namespace at its own bound leaves room for the others under the fleet bound', () => {
    const noisy = Array.from({ length: 2000 }, (_, i) => facts('noisy', `c-${i}`, 10 + i));
    const quiet = [facts('quiet', 'prod', 5000)];
    const { kept, leftOut } = boundClusters([...noisy, ...quiet], { maxClusters: 1000, maxPerNamespace: 250 });
    expect(kept).toHaveLength(251);
    expect(names(kept)).toContain('quiet/prod');
    expect(leftOut).toEqual([{ namespace: 'noisy', count: 1750, bound: 'namespace' }]);
  });

  it('the fleet bound keeps the oldest across namespaces and reports each namespace left out', () => {
    const cs = [facts('a', '1', 1), facts('b', '1', 2), facts('a', '2', 3), facts('c', '1', 4), facts('b', '2', 5)];
    const { kept, leftOut } = boundClusters(cs, { maxClusters: 3, maxPerNamespace: 10 });
    expect(names(kept)).toEqual(['a/1', 'b/1', 'a/2']);
    expect(leftOut).toEqual([{ namespace: 'b', count: 1, bound: 'fleet' }, { namespace: 'c', count: 1, bound: 'fleet' }]);
  });

  it('a Cluster without a creation time sorts after dated ones, then by namespace and name', () => {
    const cs = [facts('a', 'undated'), facts('z', 'dated', 9e12), facts('a', 'b-undated')];
    expect(names(boundClusters(cs, { maxClusters: 2, maxPerNamespace: 10 }).kept)).toEqual(['z/dated', 'a/b-undated']);
  });

  it('leftOutKey changes only when the counts do', () => {
    const a = boundClusters([facts('a', '1', 1), facts('a', '2', 2)], { maxClusters: 1, maxPerNamespace: 5 }).leftOut;
    expect(leftOutKey(a)).toBe('a:fleet:1');
    expect(leftOutKey([])).toBe('');
    expect(leftOutByBound([...a, { namespace: 'b', count: 3, bound: 'namespace' }, { namespace: 'c', count: 2, bound: 'fleet' }])).toEqual({ namespace: 3, fleet: 3 });
  });
});

describe('toCapiClusterFacts creation time', () => {
  it('reads metadata.creationTimestamp, and leaves it out when it does not parse', () => {
    expect(toCapiClusterFacts({ metadata: { namespace: 'a', name: 'b', creationTimestamp: '2026-01-01T00:00:00Z' } })?.createdAt).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(toCapiClusterFacts({ metadata: { namespace: 'a', name: 'b', creationTimestamp: 'soon' } })).not.toHaveProperty('createdAt');
  });
});

describe('historyShare', () => {
  const MIB = 2 ** 20;
  it('shares the fleet budget by the most clusters the fleet may follow, within the per-cluster cap and the minimum', () => {
    expect(historyShare(256 * MIB, 1000, 16 * MIB)).toBe(Math.floor((256 * MIB) / 1000));
    expect(historyShare(256 * MIB, 10, 16 * MIB)).toBe(16 * MIB);
    expect(historyShare(1 * MIB, 1000, 16 * MIB)).toBe(MIN_HISTORY_BYTES);
    // The sum over a full fleet stays within the budget whenever the share is above the minimum.
    expect(historyShare(256 * MIB, 1000, 16 * MIB) * 1000).toBeLessThanOrEqual(256 * MIB);
  });
});
