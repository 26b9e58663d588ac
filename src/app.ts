import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.ts';
import type { MemberSource } from './discovery/member-source.ts';
import { StaticSource } from './discovery/static-source.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { Lifecycle } from './http/lifecycle.ts';
import type { RouteDeps } from './http/route-deps.ts';
import { alarmsRoute } from './http/routes/alarms.ts';
import { healthzRoute } from './http/routes/healthz.ts';
import { membersRoutes } from './http/routes/members.ts';
import { metricsRoute } from './http/routes/metrics.ts';
import { openapiRoute } from './http/routes/openapi.ts';
import { serviceProbeRoutes } from './http/routes/service-probes.ts';
import { statusPageRoutes } from './http/routes/status-page.ts';
import { QuietLogController } from './log/request-log.ts';
import { createVerdictLogger } from './log/verdict-logger.ts';
import { ProbeMetrics } from './metrics/probe-metrics.ts';
import { Prober } from './probe/prober.ts';
import { RoundCache } from './probe/round-cache.ts';
import type { Snapshot } from './probe/snapshot.ts';
import type { TlsMaterial } from './tls/tls-files.ts';

/** Forced (`?fresh=true`) rounds start at most once per second. */
export const MIN_FORCED_INTERVAL_MS = 1000;

/** What the app is built from; the clock, the member source and the lifecycle can be injected. */
export interface AppOptions {
  readonly config: Config;
  readonly tls: TlsMaterial;
  readonly logger: Logger;
  /** Epoch milliseconds; defaults to Date.now. */
  readonly now?: () => number;
  /** Where the members are and how to reach them; defaults to static endpoints from config. */
  readonly source?: MemberSource;
  readonly lifecycle?: Lifecycle;
}

/** The built app and the parts that main and tests reach for. */
export interface App {
  readonly server: FastifyInstance;
  readonly lifecycle: Lifecycle;
  readonly cache: RoundCache<Snapshot>;
  readonly metrics: ProbeMetrics;
  readonly prober: Prober;
  /** Every route registered, as `METHOD /url`, so tests can hold openapi.yaml to it. */
  readonly routes: readonly string[];
}

/** Builds the service (routes, probe, cache, metrics) without listening; closing the server closes it all. */
export function buildApp(options: AppOptions): App {
  const { config, logger } = options;
  const now = options.now ?? Date.now;
  const lifecycle = options.lifecycle ?? new Lifecycle();
  const source =
    options.source ??
    new StaticSource({ endpoints: config.endpoints, discover: config.discover, tls: options.tls, timeoutMs: config.timeoutMs });
  const prober = new Prober({ source, thresholds: { quotaBytes: config.quotaBytes, maxRaftGap: config.maxRaftGap }, now });
  const metrics = new ProbeMetrics();
  const logVerdict = createVerdictLogger(logger);
  const cache = new RoundCache<Snapshot>({
    load: async () => {
      const snapshot = await prober.round();
      metrics.recordRound(snapshot);
      logVerdict(snapshot);
      return snapshot;
    },
    ttlMs: config.cacheTtlMs,
    minForcedIntervalMs: MIN_FORCED_INTERVAL_MS,
    now,
  });

  const server: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new QuietLogController(logger),
    // One logger for all requests instead of a pino child per request (a cost on every health poll);
    // the request log lines carry reqId themselves.
    childLoggerFactory: (parent) => parent,
    // The API takes no bodies; anything larger than a small header-only request is refused.
    bodyLimit: 1024,
    requestTimeout: 30_000,
    // While closing, a request on a kept-alive connection is still answered truthfully (and told to
    // close): a blanket 503 from /healthz/etcd would tell a load balancer that etcd failed. /readyz
    // says that the service is going away.
    return503OnClosing: false,
  });
  const routes: string[] = [];
  server.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`);
  });
  installErrorHandling(server);
  const deps: RouteDeps = { cache, metrics, config, now, lifecycle };
  healthzRoute(server, deps);
  membersRoutes(server, deps);
  alarmsRoute(server, deps);
  metricsRoute(server, deps);
  serviceProbeRoutes(server, deps);
  statusPageRoutes(server, deps);
  openapiRoute(server);
  // Once shutdown has begun, answers close their connection, including those of requests that arrived
  // before: an idle keep-alive socket would otherwise hold server.close() open until the client's
  // keep-alive timeout. (A callback hook: no promise per request.)
  server.addHook('onSend', (_request, reply, payload, done) => {
    if (!lifecycle.ready) reply.header('connection', 'close');
    done(null, payload);
  });
  server.addHook('onClose', async () => {
    lifecycle.beginShutdown();
    await cache.settle();
    prober.close();
    await source.close();
  });
  return { server, lifecycle, cache, metrics, prober, routes };
}
