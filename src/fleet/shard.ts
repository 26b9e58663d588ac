import type { ShardRef } from '../config/config.ts';

/** Which share of the fleet a replica owns: `index` of `count` (ETCD_PROBE_SHARD=<index>/<count>). */
export type Shard = ShardRef;

/** Every cluster is owned: one replica, or no sharding. */
export const WHOLE_FLEET: Shard = { index: 0, count: 1 };

/** FNV-1a, 32 bits, as kube-state-metrics hashes an object's identity to pick its shard. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The shard that owns a cluster, by a stable hash of its identity (a Cluster's uid, or its name in a clusters file). */
export function shardOf(identity: string, count: number): number {
  return fnv1a32(identity) % count;
}

/** Whether this replica owns the cluster: keeps it warm and exports its metrics. */
export function owns(shard: Shard, identity: string): boolean {
  return shardOf(identity, shard.count) === shard.index;
}
