import type { Server as HttpsServer } from 'node:https';
import type { Server as TlsServer } from 'node:tls';
import Fastify, { type FastifyBaseLogger, type FastifyHttpsOptions, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import type { LoadedToken } from '../auth/bearer-token.ts';
import { TokenFile } from '../auth/token-file.ts';
import type { ServiceConfig } from '../config/cluster-config.ts';
import { QuietLogController } from '../log/request-log.ts';
import type { CredentialMetrics } from '../metrics/credential-metrics.ts';
import { recordExpiry, reloadReporter } from '../tls/reload-reporter.ts';
import { TlsFileReloader } from '../tls/tls-file-reloader.ts';
import type { LoadedTls, TlsMaterial } from '../tls/tls-files.ts';
import { bearerAuth, installBearerGuard, type BearerAuth } from './bearer-guard.ts';
import { installClientCertificateGuard } from './client-certificate-guard.ts';
import { limitConnectionsPerClient } from './connection-limits.ts';
import { clientErrorHandler } from './client-error.ts';
import { frameworkErrorHandler } from './error-handler.ts';
import { httpServerOptions, httpsServerOptions, LISTENER_LIMITS, ROUTER_LIMITS, secureContextOptions } from './listener-options.ts';
import { installResponseHeaders } from './response-headers.ts';
import { SERVICE_PROBE_PATHS } from '../config/route-paths.ts';

/** How often the listener's certificate and token files are checked for changes, by default. */
export const RELOAD_INTERVAL_MS = 5000;

/** What the listener is made of: its limits and guarded routes, HTTPS material, the token, where to report. */
export interface ListenerOptions {
  readonly config: Pick<ServiceConfig, 'maxConnections' | 'maxConnectionsPerClient' | 'authRoutes'>;
  readonly logger: Logger;
  readonly metrics: CredentialMetrics;
  readonly now: () => number;
  readonly tls: LoadedTls | null;
  readonly auth: LoadedToken | null;
  readonly reloadIntervalMs?: number;
  /** Whether shutdown has begun: answers then close their connection. */
  readonly closing: () => boolean;
}

/** The Fastify instance with its limits, TLS and bearer guard (before any route), and the reload timer's owner. */
export interface Listener {
  readonly server: FastifyInstance;
  /** Whether the listener speaks HTTPS. */
  readonly secure: boolean;
  /** The bearer token check, for routes that answer less without it; null when no token file is set. */
  readonly auth: BearerAuth | null;
  /** Stops re-reading the certificate and token files. */
  stopReloading(): void;
}

/**
 * Creates the HTTP(S) server: limits, connection caps (global and per client), HTTPS and per-route
 * mTLS, the bearer guard, security headers, and a timer that re-reads the serving certificate (new
 * connections get it) and the token file when they change.
 */
export function createListener(options: ListenerOptions): Listener {
  const { logger, metrics, now, tls, auth } = options;
  // Fastify logs requests only when debug is on: with a logger it tracks every response's end (listeners,
  // timestamps) for its log line, a cost on every health poll. Without, errors are logged by the
  // service's own handlers (error-handler.ts).
  const requestLogging: FastifyServerOptions = logger.isLevelEnabled('debug')
    ? {
        loggerInstance: logger as FastifyBaseLogger,
        logController: new QuietLogController(logger),
        // One logger for all requests instead of a pino child per request; the log lines carry reqId themselves.
        childLoggerFactory: (parent) => parent,
      }
    : { logger: false };
  const serverOptions: FastifyServerOptions = {
    ...requestLogging,
    // The API takes no bodies; anything larger than a small header-only request is refused.
    bodyLimit: LISTENER_LIMITS.bodyLimit,
    requestTimeout: LISTENER_LIMITS.requestTimeoutMs,
    keepAliveTimeout: LISTENER_LIMITS.keepAliveTimeoutMs,
    // While closing, a request on a kept-alive connection is still answered truthfully (and told to
    // close): a blanket 503 from /healthz/etcd would tell a load balancer that etcd failed. /readyz
    // says that the service is going away.
    return503OnClosing: false,
    routerOptions: { maxParamLength: ROUTER_LIMITS.maxParamLength },
    // What the router and Node's parser refuse is answered in the envelope too (error-handler.ts, client-error.ts).
    frameworkErrors: frameworkErrorHandler({ https: tls !== null, logger }),
    clientErrorHandler: clientErrorHandler({ https: tls !== null }),
  };
  // Fastify types an HTTPS instance apart; the routes and hooks are the same, so one type serves both.
  const server = (
    tls
      ? Fastify({ ...serverOptions, https: httpsServerOptions(tls.material) } as FastifyHttpsOptions<HttpsServer>)
      : Fastify({ ...serverOptions, http: httpServerOptions() })
  ) as unknown as FastifyInstance;
  // Past the limit Node closes new connections at once: refused, never answered with a 503 that a
  // load balancer would read as "etcd failed".
  server.server.maxConnections = options.config.maxConnections;
  server.server.on('drop', () => metrics.connectionDropped());
  limitConnectionsPerClient(server.server, options.config.maxConnectionsPerClient, () => metrics.connectionDroppedPerClient());
  installResponseHeaders(server, { https: tls !== null, closing: options.closing });
  if (tls?.material.ca) installClientCertificateGuard(server, SERVICE_PROBE_PATHS);

  const reloaders: { refresh(): boolean }[] = [];
  if (tls) {
    recordExpiry(metrics, 'listener', tls.material);
    const apply = (material: TlsMaterial) => (server.server as unknown as TlsServer).setSecureContext(secureContextOptions(material));
    reloaders.push(new TlsFileReloader(tls.files, tls.material, reloadReporter('listener', logger, metrics, now), apply));
  }
  let check: BearerAuth | null = null;
  if (auth) {
    const reporter = reloadReporter('auth-token', logger, metrics, now);
    const token = new TokenFile(auth.file, auth.token, {
      reloaded: () => {
        metrics.reloaded('auth-token');
        metrics.tokenUsable(true);
        logger.info({ credentials: 'auth-token' }, 'reloaded the bearer token');
      },
      failed: (failure) => {
        metrics.tokenUsable(false);
        reporter.failed(failure);
      },
    });
    metrics.tokenUsable(true);
    reloaders.push(token);
    check = bearerAuth(() => token.digest());
    installBearerGuard(server, { auth: check, routes: options.config.authRoutes });
  }
  const timer = reloaders.length > 0 ? setInterval(() => reloaders.forEach((r) => r.refresh()), options.reloadIntervalMs ?? RELOAD_INTERVAL_MS) : null;
  timer?.unref();
  return {
    server,
    secure: tls !== null,
    auth: check,
    stopReloading: () => {
      if (timer) clearInterval(timer);
    },
  };
}
