import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp, type App } from '../app.ts';
import { buildFleetApp, type FleetApp, type FleetSource } from '../fleet-app.ts';
import type { Lifecycle } from '../http/lifecycle.ts';
import { ConfigError } from '../config/config-error.ts';
import { EXIT_CONFIG } from './exit-codes.ts';
import type { ConfigResult } from './load-config.ts';
import { listenUrls } from './listen-urls.ts';

/** How long a graceful shutdown may take (after ETCD_PROBE_SHUTDOWN_DELAY) before the process exits anyway. */
export const SHUTDOWN_BOUND_MS = 10_000;

/** What `etcd-probe serve` runs with; exiting and writing errors are injected (main owns the process). */
export interface ServeOptions {
  readonly resolved: Extract<ConfigResult, { ok: true }>;
  readonly logger: Logger;
  readonly writeError: (text: string) => void;
  readonly exit: (code: number) => void;
}

/** The running server: main calls stop() from its signal handlers. */
export interface Serving<A = App> {
  readonly app: A;
  stop(signal: NodeJS.Signals): Promise<void>;
}

/** What serving needs of an app, single-cluster or fleet. */
interface Servable {
  readonly server: FastifyInstance;
  readonly lifecycle: Lifecycle;
  readonly secure: boolean;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * The warning a service gives at start when it answers everyone: no token file and a listener that is not
 * loopback-only (the default 0.0.0.0:8080). Its routes name hosts, members and sizes, and in fleet mode every
 * tenant's clusters; null when a token is set or the listener is loopback.
 */
export function openListenerWarning(config: { readonly listen: { readonly host: string; readonly port: number } }, hasToken: boolean, listenSource: string): string | null {
  if (hasToken || LOOPBACK_HOSTS.has(config.listen.host)) return null;
  return `every route is open to whoever reaches ${config.listen.host}:${config.listen.port} (${listenSource}): no ETCD_PROBE_AUTH_TOKEN_FILE is set, and /members, /alarms, /metrics and the status page name hosts, members and sizes; set a token file, or listen on 127.0.0.1 (docs/security.md)`;
}

/** Builds the app and listens; null when the address cannot be bound (reported as a config error, exit 78). */
export function serve(options: ServeOptions): Promise<Serving | null> {
  const { resolved, logger } = options;
  const { config, tls } = resolved;
  return run(options, () => buildApp({ config, tls, logger, tlsFiles: resolved.tlsFiles, listenerTls: resolved.listenerTls, auth: resolved.auth, inCluster: resolved.inCluster }));
}

/** Builds fleet mode over `source` and listens, as serve() does. */
export function serveFleet(options: ServeOptions, source: FleetSource): Promise<Serving<FleetApp> | null> {
  const { resolved, logger } = options;
  return run(options, () => buildFleetApp({ config: resolved.config, logger, source, listenerTls: resolved.listenerTls, auth: resolved.auth }));
}

async function run<A extends Servable>(options: ServeOptions, build: () => Promise<A>): Promise<Serving<A> | null> {
  const { resolved, logger, exit } = options;
  const { config } = resolved;
  let app: A;
  try {
    app = await build();
  } catch (error) {
    // Building the member source may find a setting unusable (a mode's files, say): still a config error.
    if (!(error instanceof ConfigError)) throw error;
    options.writeError(`etcd-probe: ${error.message}\n`);
    exit(EXIT_CONFIG);
    return null;
  }
  try {
    await app.server.listen({ host: config.listen.host, port: config.listen.port });
  } catch (error) {
    const source = resolved.sources.listen ?? 'ETCD_PROBE_LISTEN';
    options.writeError(`etcd-probe: ${source}: cannot listen on ${config.listen.host}:${config.listen.port}: ${(error as Error).message}\n`);
    exit(EXIT_CONFIG);
    return null;
  }
  const { deployment } = resolved;
  const alone = deployment.kind === 'cluster';
  const urls = listenUrls(app.server.addresses(), app.secure);
  logger.info(
    {
      urls,
      deployment: deployment.kind,
      mode: alone ? config.mode : undefined,
      endpoints: alone && config.mode === 'static' ? config.endpoints : undefined,
      kubeconfig: alone ? config.kubeconfig : undefined,
      capiCluster: alone ? config.capiCluster : undefined,
      clustersFile: deployment.kind === 'clusters-file' ? deployment.file : undefined,
      capiFleet: deployment.kind === 'capi-fleet' ? { namespace: deployment.namespace, selector: deployment.selector } : undefined,
      shard: alone ? undefined : `${config.shard.index}/${config.shard.count}`,
      policy: config.policy,
      cacheTtlMs: config.cacheTtlMs,
      timeoutMs: config.timeoutMs,
      discover: config.discover,
      caFile: config.caFile,
      certFile: config.certFile,
      scheme: app.secure ? 'https' : 'http',
      clientCertificates: config.tlsClientCaFile !== null,
      guardedRoutes: resolved.auth === null ? [] : config.authRoutes,
      maxConnections: config.maxConnections,
    },
    `etcd-probe listening on ${urls.join(', ')}`,
  );
  const open = openListenerWarning(config, resolved.auth !== null, resolved.sources.listen ?? 'ETCD_PROBE_LISTEN');
  if (open) logger.warn(open);

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      exit(1);
      return;
    }
    stopping = true;
    logger.info({ signal, delayMs: config.shutdownDelayMs }, 'shutting down');
    app.lifecycle.beginShutdown();
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      exit(1);
    }, config.shutdownDelayMs + SHUTDOWN_BOUND_MS).unref();
    // /readyz fails from now on; serving on for the delay lets endpoints controllers and load balancers
    // take the pod out of rotation before its listener goes away.
    if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    await app.server.close();
    logger.info('stopped');
    exit(0);
  };
  return { app, stop };
}
