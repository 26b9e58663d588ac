import type { FastifyReply } from 'fastify';
import type { CacheOutcome, CacheRead } from '../probe/round-cache.ts';

/**
 * `Cache-Control` of an answer from a round: fresh for the whole cache TTL counted from when the round
 * finished, and `Age` says how much of it has passed. RFC 9111 (4.2) takes an answer as fresh while Age
 * is below max-age, so a cache or a poller that reads both sees it go stale when the service's own
 * cache does (max-age is whole seconds: a TTL under a second gives max-age=0, revalidate every time).
 * `stale-while-revalidate` (RFC 5861) says for how many seconds past max-age the service itself may
 * answer from the latest round while the next one runs (the etcd call timeout, rounded up).
 * `private` when the answer was given for a credential.
 */
export function cacheControl(ttlMs: number, staleMs: number, credentialed: boolean): string {
  const key = `${ttlMs}/${staleMs}`;
  let values = CACHE_CONTROL.get(key);
  if (values === undefined) {
    const swr = staleMs > 0 ? `, stale-while-revalidate=${Math.ceil(staleMs / 1000)}` : '';
    const maxAge = `max-age=${Math.floor(ttlMs / 1000)}${swr}`;
    values = [maxAge, `private, ${maxAge}`];
    CACHE_CONTROL.set(key, values);
  }
  return values[credentialed ? 1 : 0];
}

// Built once per TTL rather than once per request.
const CACHE_CONTROL = new Map<string, readonly [shared: string, credentialed: string]>();

/**
 * RFC 9211 Cache-Status for each way the round cache can serve a request, plain or forced with `?fresh`.
 * A stale answer is a hit whose `ttl` (remaining freshness, seconds) is negative; setRoundHeaders adds it.
 */
const CACHE_STATUS: Record<CacheOutcome, readonly [plain: string, forced: string]> = {
  hit: ['etcd-probe; hit', 'etcd-probe; hit'],
  stale: ['etcd-probe; hit', 'etcd-probe; hit'],
  miss: ['etcd-probe; fwd=miss', 'etcd-probe; fwd=request'],
  coalesced: ['etcd-probe; fwd=miss; collapsed', 'etcd-probe; fwd=request; collapsed'],
};

/**
 * Sets Cache-Control, Age (whole seconds since the round finished, rounded down as RFC 9111 counts
 * delta-seconds) and Cache-Status (whether this request found the round finished, started it, or
 * joined it; for an answer past its TTL, `ttl=` the negative seconds of freshness left and
 * `detail=stale-while-revalidate`) on an answer from a round.
 */
export function setRoundHeaders(reply: FastifyReply, read: CacheRead<unknown>, control: string, now: number, forced: boolean, ttlMs: number): void {
  reply.header('cache-control', control);
  reply.header('age', String(Math.floor(Math.max(0, now - read.completedAt) / 1000)));
  const status = CACHE_STATUS[read.cache][forced ? 1 : 0];
  if (read.cache !== 'stale') reply.header('cache-status', status);
  else reply.header('cache-status', `${status}; ttl=${Math.min(-1, Math.floor((read.completedAt + ttlMs - now) / 1000))}; detail=stale-while-revalidate`);
}
