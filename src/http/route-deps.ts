import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClusterConfig } from '../config/cluster-config.ts';
import type { ProbeMetrics } from '../metrics/probe-metrics.ts';
import type { RoundHistory } from '../probe/history/round-history.ts';
import type { Thresholds } from '../probe/member-checks.ts';
import type { CacheRead, RoundCache } from '../probe/round-cache.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import { ApiError } from './api-error.ts';
import type { BearerAuth } from './bearer-guard.ts';
import { cacheControl, setRoundHeaders } from './cache-headers.ts';
import type { Lifecycle } from './lifecycle.ts';
import { credentialOf } from './response-headers.ts';

/** What the routes share: the one cache of rounds, the metrics, the settings they read, a clock, the lifecycle. */
export interface RouteDeps {
  readonly cache: RoundCache<Snapshot>;
  readonly metrics: ProbeMetrics;
  readonly config: Pick<ClusterConfig, 'policy' | 'cacheTtlMs' | 'timeoutMs' | 'quotaBytes'>;
  /** Epoch milliseconds. */
  readonly now: () => number;
  readonly lifecycle: Lifecycle;
  /** The recent rounds the prober keeps, for /history. */
  readonly history: RoundHistory;
  /** The limits the verdict judges by, for the disruption projections. */
  readonly thresholds: Thresholds;
  /** The bearer token check when a token file is set: /healthz/etcd tells callers without it less. */
  readonly auth: BearerAuth | null;
  /**
   * Answer from the round the cache holds, never starting one (a fleet's caller without the token: the
   * site checked that a round young enough is held).
   */
  readonly heldOnly?: boolean;
}

/**
 * Where a set of cluster routes is mounted and whose rounds they read: `''` and the one cluster in
 * single-cluster mode; `/clusters/:cluster` and the cluster the request names in fleet mode (depsOf
 * throws the 404 when there is no such cluster).
 */
export interface RouteSite {
  readonly prefix: string;
  depsOf(request: FastifyRequest): RouteDeps;
}

/** The site of single-cluster mode: routes at the root, every request reads the one cluster. */
export function rootSite(deps: RouteDeps): RouteSite {
  return { prefix: '', depsOf: () => deps };
}

/** The one answer a caller without the token gets when no round can be given without starting one. */
export function verdictUnavailable(): ApiError {
  return new ApiError('VERDICT_UNAVAILABLE', 'no verdict can be given without the token now: ask with the token');
}

/** The round the cache holds, as a hit; the uniform VERDICT_UNAVAILABLE when it holds none. */
function heldRound(deps: RouteDeps): CacheRead<Snapshot> {
  const held = deps.cache.peek();
  if (held === null) throw verdictUnavailable();
  return { value: held.value, completedAt: held.completedAt, cache: 'hit' };
}

function roundHeaders(deps: RouteDeps, route: string, request: FastifyRequest, reply: FastifyReply, read: CacheRead<Snapshot>, now: number, wanted: RoundWanted): void {
  const { fresh } = wanted;
  deps.metrics.countRequest(route, read.cache);
  const { cacheTtlMs, timeoutMs } = deps.config;
  // TTL 0 (every request its own round) and routes that refuse stale answers (/disruption) announce no
  // stale-while-revalidate: a cache in front must not serve them stale either.
  const staleMs = cacheTtlMs > 0 && wanted.stale ? timeoutMs : 0;
  setRoundHeaders(reply, read, cacheControl(cacheTtlMs, staleMs, credentialOf(request) !== 'none'), now, fresh, cacheTtlMs);
}

/** Which round a route accepts: `fresh` a new one (`?fresh=true`); `stale` false: none past its TTL (/disruption). */
export interface RoundWanted {
  readonly fresh: boolean;
  readonly stale: boolean;
}

/**
 * Reads the shared snapshot for a route: counts how the cache served it (under `route`) and sets
 * Cache-Control (`private` when the request was let in by a credential, which the guards decide before
 * any handler), Age and Cache-Status. Past the TTL it answers from the latest round while the next runs
 * (at most TTL + timeout old), unless the route asks for no stale answer.
 */
export async function readSnapshot(
  deps: RouteDeps,
  route: string,
  request: FastifyRequest,
  reply: FastifyReply,
  wanted: RoundWanted = { fresh: false, stale: true },
): Promise<CacheRead<Snapshot>> {
  const { fresh } = wanted;
  const read = deps.heldOnly ? heldRound(deps) : await deps.cache.get({ fresh, stale: wanted.stale });
  roundHeaders(deps, route, request, reply, read, deps.now(), wanted);
  return read;
}

/**
 * Answers from the shared snapshot. While the cached round is young (and no `?fresh`), at once: no
 * promise, no await, nothing but headers, a counter and `answer` (which sends bytes it already has);
 * otherwise once the cache has a round (readSnapshot). A young round is answered even while a forced
 * round is in flight: it is within its TTL, which is all a caller without `?fresh` asks for. Returns
 * the promise only on the slow path, so that Fastify wraps no promise for a cached answer; whatever
 * `answer` throws reaches the error handler either way.
 */
export function answerFromRound(
  deps: RouteDeps,
  route: string,
  request: FastifyRequest,
  reply: FastifyReply,
  wanted: RoundWanted,
  answer: (read: CacheRead<Snapshot>) => void,
): Promise<void> | undefined {
  if (deps.heldOnly) {
    const read = heldRound(deps);
    roundHeaders(deps, route, request, reply, read, deps.now(), { fresh: false, stale: true });
    answer(read);
    return undefined;
  }
  const { fresh } = wanted;
  if (!fresh) {
    const current = deps.cache.peek();
    const now = deps.now();
    if (current !== null && now - current.completedAt < deps.config.cacheTtlMs) {
      const read: CacheRead<Snapshot> = { value: current.value, completedAt: current.completedAt, cache: 'hit' };
      roundHeaders(deps, route, request, reply, read, now, wanted);
      answer(read);
      return undefined;
    }
  }
  return readSnapshot(deps, route, request, reply, wanted).then(answer);
}
