import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { LoadedToken } from './auth/bearer-token.ts';
import type { Config, InClusterAccess } from './config/config.ts';
import { ClusterRuntime } from './cluster/cluster-runtime.ts';
import { buildProbeCore, DATA_CHECK_DEFAULT_MS } from './core/probe-core.ts';
import type { DiscoveredSource } from './discovery/discovered-source.ts';
import { Lifecycle } from './http/lifecycle.ts';
import { clusterRoutes } from './http/cluster-routes.ts';
import { rootSite, type RouteDeps } from './http/route-deps.ts';
import { metricsRoute } from './http/routes/metrics.ts';
import { serviceShell } from './http/service-shell.ts';
import type { ProbeMetrics } from './metrics/probe-metrics.ts';
import type { HistoryThresholds } from './probe/history/history-checks.ts';
import type { Prober } from './probe/prober.ts';
import { RoundCadence } from './probe/round-cadence.ts';
import { MIN_FORCED_INTERVAL_MS, RoundCache } from './probe/round-cache.ts';
import type { Snapshot } from './probe/snapshot.ts';
import type { LoadedTls, TlsFiles, TlsMaterial } from './tls/tls-files.ts';

/** Forced (`?fresh=true`) rounds start at most once per second. */

/** What the app is built from; the clock, the member source and the lifecycle can be injected. */
export interface AppOptions {
  readonly config: Config;
  readonly tls: TlsMaterial;
  readonly logger: Logger;
  /** Epoch milliseconds; defaults to Date.now. */
  readonly now?: () => number;
  /** The API server and service-account files when a setting says `in-cluster` (ConfigResult's inCluster). */
  readonly inCluster?: InClusterAccess | null;
  /** Where the members are and how to reach them; defaults to the source the config selects. */
  readonly source?: DiscoveredSource;
  readonly lifecycle?: Lifecycle;
  /** etcd client TLS files, re-read at the start of a round when they changed; absent: `tls` is fixed. */
  readonly tlsFiles?: TlsFiles;
  /** The listener's HTTPS files (ca: the client CA) and material as read at start; null or absent: HTTP. */
  readonly listenerTls?: LoadedTls | null;
  /** The bearer token's file and token as read at start; null or absent: every route is open. */
  readonly auth?: LoadedToken | null;
  /** How often the listener's certificate and the token files are checked for changes. */
  readonly reloadIntervalMs?: number;
  /** The history checks' limits; the fixed ones (HISTORY_THRESHOLDS) but in tests that need them other. */
  readonly historyThresholds?: HistoryThresholds;
}

/** The built app and the parts that main and tests reach for. */
export interface App {
  readonly server: FastifyInstance;
  readonly lifecycle: Lifecycle;
  readonly cache: RoundCache<Snapshot>;
  readonly metrics: ProbeMetrics;
  readonly prober: Prober;
  /** Whether the listener speaks HTTPS. */
  readonly secure: boolean;
  /** Every route registered, as `METHOD /url`, so tests can hold openapi.yaml to it. */
  readonly routes: readonly string[];
}

/** Builds the service (routes, probe, cache, metrics) without listening; closing the server closes it all. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { config, logger } = options;
  const now = options.now ?? Date.now;
  const lifecycle = options.lifecycle ?? new Lifecycle();
  const runtime = new ClusterRuntime({
    config,
    tls: options.tls,
    tlsFiles: options.tlsFiles ?? null,
    logger,
    now,
    processMetrics: true,
    ...(options.historyThresholds ? { historyThresholds: options.historyThresholds } : {}),
    buildCore: (etcdTls) => buildProbeCore({ ...options, now, etcdTls, dataCheckDefaultMs: DATA_CHECK_DEFAULT_MS }),
  });
  // Built at start, so that a source that cannot be built (a bad kubeconfig) stops the service there.
  const core = await runtime.core();
  const { prober } = core;
  const { metrics } = runtime;
  const cache = new RoundCache<Snapshot>({
    load: () => runtime.round(),
    ttlMs: config.cacheTtlMs,
    // A round with a hung member lasts the call timeout: answers stay at most TTL + timeout old meanwhile.
    staleMs: config.timeoutMs,
    minForcedIntervalMs: MIN_FORCED_INTERVAL_MS,
    now,
  });

  const { server, auth, secure, routes } = serviceShell({
    config,
    logger,
    metrics: runtime.credentials,
    now,
    tls: options.listenerTls ?? null,
    auth: options.auth ?? null,
    lifecycle,
    ...(options.reloadIntervalMs === undefined ? {} : { reloadIntervalMs: options.reloadIntervalMs }),
  });
  const deps: RouteDeps = { cache, metrics, config, now, lifecycle, auth, history: prober.history, thresholds: runtime.thresholds };
  clusterRoutes(server, rootSite(deps));
  metricsRoute(server, deps);
  // Rounds run every TTL once the server listens, whoever polls (history sees each); an app only
  // injected into (tests) runs them on demand.
  const cadence = new RoundCadence({ cache, ttlMs: config.cacheTtlMs, now });
  server.addHook('onListen', (done) => {
    cadence.start();
    done();
  });
  server.addHook('onClose', async () => {
    cadence.stop();
    await cache.settle();
    await runtime.release();
  });
  return { server, lifecycle, cache, metrics, prober, secure, routes };
}
