import type { CapiClusterFacts } from '../kube/capi-cluster-facts.ts';

/** The bounds on how many Clusters a Cluster API fleet follows. */
export interface ClusterBounds {
  /** Clusters followed at most in the whole fleet. */
  readonly maxClusters: number;
  /** Clusters followed at most in one namespace. */
  readonly maxPerNamespace: number;
}

/** Which bound left Clusters out: the namespace's own, or the fleet's. */
export type BoundName = 'namespace' | 'fleet';

/** Clusters of one namespace that a bound left out. */
export interface LeftOut {
  readonly namespace: string;
  readonly count: number;
  readonly bound: BoundName;
}

/** The Clusters followed and those left out, by namespace and bound. */
export interface BoundedClusters {
  readonly kept: CapiClusterFacts[];
  readonly leftOut: LeftOut[];
}

// Oldest first, so that a tenant creating new Clusters cannot push out the ones already followed; a
// Cluster without a creation time sorts last (it cannot claim to be old), then by namespace and name.
function olderFirst(a: CapiClusterFacts, b: CapiClusterFacts): number {
  const ta = a.createdAt ?? Number.POSITIVE_INFINITY;
  const tb = b.createdAt ?? Number.POSITIVE_INFINITY;
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function tally(leftOut: Map<string, LeftOut>, namespace: string, bound: BoundName): void {
  const key = `${bound}\u0000${namespace}`;
  leftOut.set(key, { namespace, bound, count: (leftOut.get(key)?.count ?? 0) + 1 });
}

/**
 * Applies the per-namespace bound, then the fleet bound, keeping the oldest Clusters. The result is the
 * kept Clusters in listing order and the left-out counts sorted by namespace then bound.
 */
export function boundClusters(clusters: readonly CapiClusterFacts[], bounds: ClusterBounds): BoundedClusters {
  const ordered = [...clusters].sort(olderFirst);
  const perNamespace = new Map<string, number>();
  const leftOut = new Map<string, LeftOut>();
  const kept = new Set<CapiClusterFacts>();
  for (const cluster of ordered) {
    const inNamespace = perNamespace.get(cluster.namespace) ?? 0;
    if (inNamespace >= bounds.maxPerNamespace) {
      tally(leftOut, cluster.namespace, 'namespace');
      continue;
    }
    if (kept.size >= bounds.maxClusters) {
      tally(leftOut, cluster.namespace, 'fleet');
      continue;
    }
    perNamespace.set(cluster.namespace, inNamespace + 1);
    kept.add(cluster);
  }
  const rows = [...leftOut.values()].sort((a, b) => (a.namespace !== b.namespace ? (a.namespace < b.namespace ? -1 : 1) : a.bound < b.bound ? -1 : a.bound > b.bound ? 1 : 0));
  return { kept: clusters.filter((c) => kept.has(c)), leftOut: rows };
}

/** A one-line summary of left-out counts, stable for comparing one listing to the next (log once per change). */
export function leftOutKey(leftOut: readonly LeftOut[]): string {
  return leftOut.map((r) => `${r.namespace}:${r.bound}:${r.count}`).join(',');
}

/** Left-out Clusters summed by bound, for etcd_probe_fleet_left_out_clusters{bound}. */
export function leftOutByBound(leftOut: readonly LeftOut[]): { namespace: number; fleet: number } {
  const sums = { namespace: 0, fleet: 0 };
  for (const row of leftOut) sums[row.bound] += row.count;
  return sums;
}

/** The least history a cluster keeps whatever the budget (the old ETCD_PROBE_HISTORY_MAX_BYTES's minimum). */
export const MIN_HISTORY_BYTES = 64 * 1024;

/**
 * A Cluster API fleet cluster's history cap: the fleet budget shared by as many clusters as the fleet may
 * follow (so the sum stays within it however many Clusters a tenant creates), never more than the
 * per-cluster setting, never less than MIN_HISTORY_BYTES.
 */
export function historyShare(budgetBytes: number, maxClusters: number, perClusterBytes: number): number {
  return Math.min(perClusterBytes, Math.max(MIN_HISTORY_BYTES, Math.floor(budgetBytes / maxClusters)));
}
