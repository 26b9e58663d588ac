#!/usr/bin/env node
import type { Logger } from 'pino';
import { runCheck } from './cli/check.ts';
import { parseCommandLine } from './cli/command-line.ts';
import { EXIT_CONFIG, EXIT_SOFTWARE } from './cli/exit-codes.ts';
import { loadConfig } from './cli/load-config.ts';
import { fleetSourceOf } from './cli/fleet-source.ts';
import { serve, serveFleet, type Serving } from './cli/serve.ts';
import { usage } from './cli/usage.ts';
import { packageVersion } from './cli/version.ts';
import { ConfigError } from './config/config-error.ts';
import { createLogger, stderrDestination } from './log/logger.ts';

// Node 24 pools small Buffers in 64 KiB slabs, and one long-lived Buffer keeps its whole slab: TLS
// material read from Secrets, and the ALPN list Node makes for every TLS connection, pinned 33 MiB of
// slabs in a fleet of 500 clusters (a heap snapshot). Node's earlier 8 KiB slabs waste an eighth of that.
Buffer.poolSize = 8 * 1024;

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
  const line = parseCommandLine(process.argv.slice(2));
  if (line.help) {
    process.stdout.write(usage(line.help));
    return;
  }
  if (line.version) {
    process.stdout.write(`etcd-probe ${packageVersion()}\n`);
    return;
  }
  const input = { env: process.env, argv: line.settings, now: new Date() };
  const result = loadConfig(input);
  const errors = [...line.errors, ...(result.ok ? [] : result.errors)];
  if (!result.ok || errors.length > 0) {
    for (const error of errors) process.stderr.write(`etcd-probe: ${error.message}\n`);
    process.exit(EXIT_CONFIG);
  }
  // check keeps stdout for its report (-o json must parse), so its logs go to stderr.
  const logger = createLogger(result.config.logLevel, line.command === 'check' ? stderrDestination() : undefined);
  routeProcessWarnings(logger);
  for (const warning of result.warnings) logger.warn(warning);

  const { deployment } = result;
  if (deployment.kind !== 'cluster' && line.command === 'check') {
    process.stderr.write('etcd-probe: check probes one cluster; with ETCD_PROBE_CLUSTERS_FILE or ETCD_PROBE_CAPI_CLUSTER=* ask the service (GET /clusters, or /clusters/{cluster}/healthz/etcd)\n');
    process.exit(EXIT_CONFIG);
  }
  if (line.command === 'check') {
    try {
      // No process.exit: the process ends when check has closed everything it opened.
      process.exitCode = await runCheck({ config: result.config, tls: result.tls, inCluster: result.inCluster, output: line.output, canStop: line.canStop, write: (t) => process.stdout.write(t) });
    } catch (error) {
      if (error instanceof ConfigError) {
        process.stderr.write(`etcd-probe: ${error.message}\n`);
        process.exitCode = EXIT_CONFIG;
        return;
      }
      process.stderr.write(`etcd-probe: check failed, the cluster's health is unknown: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = EXIT_SOFTWARE;
    }
    return;
  }

  const serveOptions = { resolved: result, logger, writeError: (t: string) => process.stderr.write(t), exit: (code: number) => process.exit(code) };
  let serving: Pick<Serving, 'stop'> | null;
  if (deployment.kind === 'cluster') serving = await serve(serveOptions);
  else {
    const source = await fleetSourceOf(result, deployment, input);
    if (!source.ok) {
      for (const error of source.errors) process.stderr.write(`etcd-probe: ${error.message}\n`);
      process.exit(EXIT_CONFIG);
    }
    serving = await serveFleet(serveOptions, source.source);
  }
  if (!serving) return;
  process.on('SIGTERM', (s) => void serving.stop(s));
  process.on('SIGINT', (s) => void serving.stop(s));
}

await main();
