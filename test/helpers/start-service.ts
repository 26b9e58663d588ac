import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { HISTORY_THRESHOLDS, type HistoryThresholds } from '../../src/probe/history/history-checks.ts';
import type { MemberSource } from '../../src/probe/member-source.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from './log-sink.ts';

/** An assembly (single-cluster or fleet) built from environment-style settings, listening on a free loopback port. */
export interface Running<A> {
  readonly app: A;
  readonly url: string;
  readonly logs: LogSink;
  close(): Promise<void>;
}

/** A single-cluster service, listening. */
export type RunningService = Running<App>;

/** Listens on 127.0.0.1:0; close() closes the server (and with it everything the app owns) once. */
export async function listening<A extends { readonly server: FastifyInstance; readonly secure: boolean }>(app: A, logs: LogSink): Promise<Running<A>> {
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.server.address() as AddressInfo;
  let closed = false;
  return {
    app,
    url: `${app.secure ? 'https' : 'http'}://127.0.0.1:${port}`,
    logs,
    async close() {
      if (closed) return;
      closed = true;
      await app.server.close();
    },
  };
}

/** Builds the app through the real config path (loadConfig) and listens on 127.0.0.1:0. */
export async function startService(
  env: Record<string, string>,
  options: {
    source?: (tls: import('../../src/tls/tls-files.ts').TlsMaterial) => MemberSource;
    now?: () => number;
    reloadIntervalMs?: number;
    /** Where a stand-in service account is mounted, for `in-cluster` settings. */
    serviceAccountDir?: string;
    /** The history checks' limits, other than the fixed ones (no setting turns them). */
    historyThresholds?: Partial<HistoryThresholds>;
  } = {},
): Promise<RunningService> {
  const result = loadConfig({
    env: { ETCD_PROBE_LOG_LEVEL: 'debug', ...env },
    argv: [],
    now: new Date(),
    ...(options.serviceAccountDir ? { serviceAccountDir: options.serviceAccountDir } : {}),
  });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  const logs = new LogSink();
  const app = await buildApp({
    config: result.config,
    tls: result.tls,
    logger: createLogger(result.config.logLevel, logs),
    ...(options.source ? { source: options.source(result.tls) } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.reloadIntervalMs ? { reloadIntervalMs: options.reloadIntervalMs } : {}),
    ...(options.historyThresholds ? { historyThresholds: { ...HISTORY_THRESHOLDS, ...options.historyThresholds } } : {}),
    tlsFiles: result.tlsFiles,
    listenerTls: result.listenerTls,
    auth: result.auth,
    inCluster: result.inCluster,
  });
  return listening(app, logs);
}
