import { fleetSourceOf } from '../../src/cli/fleet-source.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { buildFleetApp, type FleetApp } from '../../src/fleet-app.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from './log-sink.ts';
import { listening, type Running } from './start-service.ts';

/** A fleet-mode service built from environment-style settings, listening on a free loopback port. */
export type RunningFleet = Running<FleetApp>;

/** Builds fleet mode through the real start-up path (loadConfig, then the clusters file or the Cluster API lister) and listens on 127.0.0.1:0. */
export async function startFleet(env: Record<string, string>): Promise<RunningFleet> {
  const input = { env: { ETCD_PROBE_LOG_LEVEL: 'debug', ...env }, argv: [], now: new Date() };
  const result = loadConfig(input);
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  if (result.deployment.kind === 'cluster') throw new Error('these settings select one cluster, not a fleet');
  const source = await fleetSourceOf(result, result.deployment, input);
  if (!source.ok) throw new Error(source.errors.map((e) => e.message).join('\n'));
  const logs = new LogSink();
  const app = await buildFleetApp({ config: result.config, logger: createLogger(result.config.logLevel, logs), source: source.source, listenerTls: result.listenerTls, auth: result.auth });
  return listening(app, logs);
}
