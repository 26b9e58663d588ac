import type { Logger } from 'pino';
import type { LoadedToken } from './auth/bearer-token.ts';
import type { CapiFleetRef, Config, InClusterAccess } from './config/config.ts';
import { clusterConfigOf } from './config/cluster-config.ts';
import { historyShare, leftOutByBound } from './fleet/cluster-bounds.ts';
import type { ClusterEntry } from './fleet/cluster-entry.ts';
import { CapiFleetFollower } from './fleet/capi-fleet.ts';
import { Fleet, IDLE_CLOSE_MS } from './fleet/fleet.ts';
import { RoundLimiter } from './fleet/round-limiter.ts';
import type { KubeConnection } from './kube/kube-connection.ts';
import type { SlotOptions } from './fleet/cluster-slot.ts';
import { FLEET_PREFIX, fleetSite } from './http/fleet-site.ts';
import { Lifecycle } from './http/lifecycle.ts';
import { clusterListRoutes } from './http/routes/clusters.ts';
import { fleetMetricsRoute } from './http/routes/fleet-metrics.ts';
import { isClusterRoutePath } from './config/route-paths.ts';
import { clusterRoutes } from './http/cluster-routes.ts';
import { serviceShell } from './http/service-shell.ts';
import { MIN_FORCED_INTERVAL_MS } from './probe/round-cache.ts';
import { CredentialMetrics } from './metrics/credential-metrics.ts';
import { FleetMetrics } from './metrics/fleet-metrics.ts';
import type { LoadedTls } from './tls/tls-files.ts';

/** Forced (`?fresh=true`) rounds of one cluster start at most once per second. */

/** Where a fleet's clusters come from: a clusters file's list, or a Cluster API management cluster's Clusters. */
export type FleetSource =
  | { readonly kind: 'file'; readonly entries: readonly ClusterEntry[] }
  | { readonly kind: 'capi'; readonly management: KubeConnection; readonly inCluster: InClusterAccess | null; readonly target: CapiFleetRef; readonly selector: string | null };

/** What a fleet app is built from. */
export interface FleetAppOptions {
  /** The process's settings (the listener's, the fleet's, and the defaults every cluster inherits). */
  readonly config: Config;
  readonly logger: Logger;
  readonly source: FleetSource;
  /** Epoch milliseconds; defaults to Date.now. */
  readonly now?: () => number;
  readonly lifecycle?: Lifecycle;
  readonly listenerTls?: LoadedTls | null;
  readonly auth?: LoadedToken | null;
  readonly reloadIntervalMs?: number;
  /** Builds a cluster's prober (tests hand in scripted sources); buildProbeCore by default. */
  readonly buildCore?: SlotOptions['buildCore'];
}

/** The built fleet app and the parts that main and tests reach for. */
export interface FleetApp {
  readonly server: import('fastify').FastifyInstance;
  readonly lifecycle: Lifecycle;
  readonly fleet: Fleet;
  /** The Cluster API follower, or null for a clusters file. */
  readonly follower: CapiFleetFollower | null;
  readonly secure: boolean;
  readonly routes: readonly string[];
}

/**
 * Builds fleet mode: many clusters in one process, each with its own round cache, prober and metrics,
 * served under /clusters/{cluster}/..., with /clusters and the fleet page over them all. The owned
 * clusters (ETCD_PROBE_SHARD) are kept warm; the others are probed on demand and closed when idle.
 * Closing the server closes the fleet.
 */
export async function buildFleetApp(options: FleetAppOptions): Promise<FleetApp> {
  const { config, logger } = options;
  const now = options.now ?? Date.now;
  const lifecycle = options.lifecycle ?? new Lifecycle();
  // A round holds its slot for at most five deadlines and a second (a port-forward, then the calls): one that
  // hangs longer goes on without it.
  const limiter = new RoundLimiter(config.maxRoundsInFlight, 5 * config.timeoutMs + 1000);
  const source = options.source;
  const fleet = new Fleet({
    shard: config.shard,
    limiter,
    logger,
    now,
    minForcedIntervalMs: MIN_FORCED_INTERVAL_MS,
    refreshMs: config.fleetRefreshMs,
    idleCloseMs: IDLE_CLOSE_MS,
    holdConnections: config.holdConnections,
    ...(options.buildCore ? { buildCore: options.buildCore } : {}),
    // Every Cluster's secrets are read through the one connection the Clusters are listed with.
    ...(source.kind === 'capi' ? { management: source.management } : {}),
  });
  let follower: CapiFleetFollower | null = null;
  if (source.kind === 'file') await fleet.update(source.entries);
  else {
    follower = new CapiFleetFollower({ lister: source.management, target: source.target, selector: source.selector, fleet, base: clusterConfigOf({ ...config, historyMaxBytes: historyShare(config.fleetHistoryMaxBytes, config.fleetMaxClusters, config.historyMaxBytes) }), inCluster: source.inCluster, refreshMs: config.fleetRefreshMs, bounds: { maxClusters: config.fleetMaxClusters, maxPerNamespace: config.fleetMaxClustersPerNamespace }, logger, now });
  }

  const fleetMetrics = new FleetMetrics(() => {
    const slots = fleet.slots;
    const load = limiter.load;
    return {
      clusters: slots.length,
      owned: slots.filter((s) => s.owned).length,
      waiting: slots.filter((s) => s.entry.waiting !== null).length,
      open: slots.filter((s) => s.open).length,
      roundsRunning: load.running,
      roundsWaiting: load.waiting,
      leftOut: leftOutByBound(follower?.state.leftOut ?? []),
    };
  });
  const credentialMetrics = new CredentialMetrics(fleetMetrics.registry);
  const { server, auth, secure, routes } = serviceShell({
    config,
    logger,
    metrics: credentialMetrics,
    now,
    tls: options.listenerTls ?? null,
    auth: options.auth ?? null,
    lifecycle,
    ...(options.reloadIntervalMs === undefined ? {} : { reloadIntervalMs: options.reloadIntervalMs }),
    notFoundHint: (path) =>
      isClusterRoutePath(path) ? 'this service probes a fleet: every cluster has its routes under /clusters/{cluster}/ (GET /clusters lists them)' : null,
  });
  const site = fleetSite(fleet, { now, lifecycle, auth, refreshMs: config.fleetRefreshMs });
  clusterRoutes(server, site);
  clusterListRoutes(server, {
    fleet,
    shard: config.shard,
    now,
    reloadSeconds: Math.max(5, Math.ceil(config.cacheTtlMs / 1000)),
    discovery: () => {
      if (!follower) return null;
      const { listedAt, error, leftOut } = follower.state;
      return { listedAt: listedAt === null ? null : new Date(listedAt).toISOString(), error, clustersLeftOut: leftOut };
    },
  });
  fleetMetricsRoute(server, { fleet, own: fleetMetrics.registry });
  follower?.start();
  fleet.start();
  server.addHook('onClose', async () => {
    await follower?.close();
    await fleet.close();
  });
  logger.debug({ prefix: FLEET_PREFIX }, 'fleet routes registered');
  return { server, lifecycle, fleet, follower, secure, routes };
}
