import type { Logger } from 'pino';
import type { ClusterConfig } from '../config/cluster-config.ts';
import type { CapiFleetRef, InClusterAccess } from '../config/config.ts';
import { endpointText } from '../kube/api-endpoint.ts';
import type { CapiClusterFacts } from '../kube/capi-cluster-facts.ts';
import { boundClusters, leftOutKey, type ClusterBounds, type LeftOut } from './cluster-bounds.ts';
import type { ClusterEntry } from './cluster-entry.ts';
import type { Fleet } from './fleet.ts';

/** Lists the Clusters of a management cluster (KubeConnection does). */
export interface ClusterLister {
  listCapiClusters(namespace: string | null, labelSelector: string | null, timeoutMs: number): Promise<CapiClusterFacts[]>;
}

/** Why a Cluster is not probed now, or null when it is. */
export function waitingReason(cluster: CapiClusterFacts): string | null {
  if (cluster.deleting) return 'deleting';
  if (cluster.paused) return 'paused';
  // A control plane that was never ready has no etcd to ask yet; a Provisioned or Failed one is probed
  // whatever its readiness says now: a control plane that went down is exactly what the probe is for.
  if (!cluster.controlPlaneReady && cluster.phase !== 'Provisioned' && cluster.phase !== 'Failed') {
    return `provisioning (phase ${cluster.phase}, control plane not ready yet)`;
  }
  return null;
}

/**
 * The fleet entries of listed Clusters: each probed with the process's settings, its own `namespace/name`
 * and the controlPlaneEndpoint its kubeconfig must name (a changed endpoint rebuilds the entry).
 */
export function capiEntries(clusters: readonly CapiClusterFacts[], base: ClusterConfig, inCluster: InClusterAccess | null): ClusterEntry[] {
  return clusters.map((c) => {
    const waiting = waitingReason(c);
    const endpoint = c.controlPlaneEndpoint;
    return {
      name: `${c.namespace}/${c.name}`,
      ...(c.uid ? { shardKey: c.uid } : {}),
      config: Object.freeze({ ...base, mode: 'capi' as const, capiCluster: Object.freeze({ namespace: c.namespace, name: c.name, controlPlaneEndpoint: endpoint }) }),
      tls: { ca: null, cert: null, key: null },
      inCluster,
      waiting,
      // The uid is part of the revision: a Cluster recreated under the same name is a new cluster (and may
      // change shard); so is the endpoint its kubeconfig must name.
      revision: `${waiting ?? `probed ${endpoint ? endpointText(endpoint) : 'no endpoint'}`}#${c.uid ?? ''}`,
    };
  });
}

/** What the last listing found, for /clusters. */
export interface ListingState {
  /** When the Clusters were last listed successfully (epoch ms); null: not yet. */
  readonly listedAt: number | null;
  /** Why the latest listing failed (the fleet keeps the clusters of the last good one); null: it did not. */
  readonly error: string | null;
  /** Clusters the bounds left out of the last good listing, by namespace and bound; empty: none. */
  readonly leftOut: readonly LeftOut[];
}

/** What a CapiFleetFollower works with. */
export interface FollowerOptions {
  readonly lister: ClusterLister;
  readonly target: CapiFleetRef;
  readonly selector: string | null;
  readonly fleet: Fleet;
  readonly base: ClusterConfig;
  readonly inCluster: InClusterAccess | null;
  readonly refreshMs: number;
  /** How many Clusters are followed at most; the oldest are kept. */
  readonly bounds: ClusterBounds;
  readonly logger: Logger;
  /** Epoch milliseconds. */
  readonly now: () => number;
}

/**
 * Follows the Clusters of a management cluster: lists them every refresh interval (a list, not a
 * watch: a missed event cannot leave the fleet wrong for longer than one interval, and the API server
 * holds no watch per replica) and makes the fleet match. A failed listing keeps the clusters of the last
 * good one and is reported, never taken as "no clusters".
 */
export class CapiFleetFollower {
  readonly #options: FollowerOptions;
  #timer: NodeJS.Timeout | null = null;
  #state: ListingState = { listedAt: null, error: null, leftOut: [] };
  #syncing: Promise<void> | null = null;

  constructor(options: FollowerOptions) {
    this.#options = options;
  }

  /** What the last listing found. */
  get state(): ListingState {
    return this.#state;
  }

  /** Lists now (once at a time) and updates the fleet. */
  sync(): Promise<void> {
    this.#syncing ??= this.#sync().finally(() => {
      this.#syncing = null;
    });
    return this.#syncing;
  }

  /** Lists every refresh interval; the first listing at once. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.sync(), this.#options.refreshMs);
    this.#timer.unref();
    void this.sync();
  }

  /** Stops listing; a listing in flight ends first. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#syncing;
  }

  async #sync(): Promise<void> {
    const { lister, target, selector, fleet, base, inCluster, bounds, logger, now } = this.#options;
    try {
      const listed = await lister.listCapiClusters(target.namespace, selector, base.timeoutMs);
      const { kept, leftOut } = boundClusters(listed, bounds);
      const change = await fleet.update(capiEntries(kept, base, inCluster));
      // Logged once per change of the counts, not every listing: a bound hit stays hit for a while.
      if (leftOutKey(leftOut) !== leftOutKey(this.#state.leftOut)) {
        if (leftOut.length > 0) logger.warn({ leftOut, bounds }, 'Clusters left out of the fleet: over ETCD_PROBE_FLEET_MAX_CLUSTERS or ETCD_PROBE_FLEET_MAX_CLUSTERS_PER_NAMESPACE');
        else logger.info('no Clusters left out of the fleet any more');
      }
      this.#state = { listedAt: now(), error: null, leftOut };
      if (change.added.length + change.removed.length + change.rebuilt.length > 0) logger.info(change, 'fleet changed');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.#state.error !== message) logger.warn({ error: message }, 'listing the Cluster API clusters failed; keeping the last list');
      this.#state = { ...this.#state, error: message };
    }
  }
}
