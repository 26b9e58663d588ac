import type { FastifyReply } from 'fastify';
import type { Config } from '../config/config.ts';
import type { ProbeMetrics } from '../metrics/probe-metrics.ts';
import type { RoundHistory } from '../probe/history/round-history.ts';
import type { Thresholds } from '../probe/member-checks.ts';
import type { CacheRead, RoundCache } from '../probe/round-cache.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import type { BearerAuth } from './bearer-guard.ts';
import { setCacheHeaders } from './cache-headers.ts';
import type { Lifecycle } from './lifecycle.ts';

/** What the routes share: the one cache of rounds, the metrics, the settings they read, a clock, the lifecycle. */
export interface RouteDeps {
  readonly cache: RoundCache<Snapshot>;
  readonly metrics: ProbeMetrics;
  readonly config: Pick<Config, 'policy' | 'cacheTtlMs' | 'quotaBytes'>;
  /** Epoch milliseconds. */
  readonly now: () => number;
  readonly lifecycle: Lifecycle;
  /** The recent rounds the prober keeps, for /history. */
  readonly history: RoundHistory;
  /** The limits the verdict judges by, for the disruption projections. */
  readonly thresholds: Thresholds;
  /** The bearer token check when a token file is set: /healthz/etcd tells callers without it less. */
  readonly auth: BearerAuth | null;
}

/** Reads the shared snapshot for a route: counts how the cache served it and sets the cache headers. */
export async function readSnapshot(
  deps: RouteDeps,
  route: string,
  reply: FastifyReply,
  fresh = false,
): Promise<CacheRead<Snapshot>> {
  const read = await deps.cache.get({ fresh });
  deps.metrics.countRequest(route, read.cache);
  setCacheHeaders(reply, read, deps.config.cacheTtlMs, deps.now());
  return read;
}

/** Query-string flags: present without a value, or true/1/yes, means on. */
export function flag(value: string | undefined): boolean {
  return value !== undefined && !['false', '0', 'no'].includes(value.toLowerCase());
}
