import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { resolveConfig } from './config/resolve-config.ts';
import { usage } from './config/usage.ts';
import { createLogger } from './log/logger.ts';

/** sysexits.h EX_CONFIG: the configuration is wrong. */
const EXIT_CONFIG = 78;
/** How long a graceful shutdown may take (after ETCD_PROBE_SHUTDOWN_DELAY) before the process exits anyway. */
const SHUTDOWN_BOUND_MS = 10_000;

function routeProcessWarnings(logger: Logger): void {
  // gRPC sets the TLS servername to the host even when it is an IP (DEP0123); that is expected here.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const code = (warning as Error & { code?: string }).code;
    if (code === 'DEP0123') logger.debug({ code }, warning.message);
    else logger.warn({ code, name: warning.name }, warning.message);
  });
}

async function main(): Promise<void> {
  const result = resolveConfig({ env: process.env, argv: process.argv.slice(2), now: new Date() });
  if (result.help) {
    process.stdout.write(usage());
    return;
  }
  if (!result.ok) {
    for (const error of result.errors) process.stderr.write(`etcd-probe: ${error.message}\n`);
    process.exit(EXIT_CONFIG);
  }
  const { config, tls } = result;
  const logger = createLogger(config.logLevel);
  routeProcessWarnings(logger);
  for (const warning of result.warnings) logger.warn(warning);

  const app = buildApp({
    config,
    tls,
    logger,
    tlsFiles: result.tlsFiles,
    listenerTls: result.listenerTls,
    auth: result.auth,
  });
  try {
    await app.server.listen({ host: config.listen.host, port: config.listen.port });
  } catch (error) {
    const source = result.sources.listen ?? 'ETCD_PROBE_LISTEN';
    process.stderr.write(`etcd-probe: ${source}: cannot listen on ${config.listen.host}:${config.listen.port}: ${(error as Error).message}\n`);
    process.exit(EXIT_CONFIG);
  }
  logger.info(
    {
      endpoints: config.endpoints,
      policy: config.policy,
      cacheTtlMs: config.cacheTtlMs,
      timeoutMs: config.timeoutMs,
      discover: config.discover,
      caFile: config.caFile,
      certFile: config.certFile,
      scheme: app.secure ? 'https' : 'http',
      clientCertificates: config.tlsClientCaFile !== null,
      guardedRoutes: result.auth === null ? [] : config.authRoutes,
      maxConnections: config.maxConnections,
    },
    'etcd-probe listening',
  );

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, delayMs: config.shutdownDelayMs }, 'shutting down');
    app.lifecycle.beginShutdown();
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownDelayMs + SHUTDOWN_BOUND_MS).unref();
    // /readyz fails from now on; serving on for the delay lets endpoints controllers and load balancers
    // take the pod out of rotation before its listener goes away.
    if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    await app.server.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', (s) => void stop(s));
  process.on('SIGINT', (s) => void stop(s));
}

await main();
