import type { FastifyReply } from 'fastify';
import type { CacheOutcome, CacheRead } from '../probe/round-cache.ts';

/**
 * `Cache-Control` of an answer from a round: fresh for the whole cache TTL counted from when the round
 * finished, and `Age` says how much of it has passed. RFC 9111 (4.2) takes an answer as fresh while Age
 * is below max-age, so a cache or a poller that reads both sees it go stale when the service's own
 * cache does (max-age is whole seconds: a TTL under a second gives max-age=0, revalidate every time).
 * `private` when the answer was given for a credential.
 */
export function cacheControl(ttlMs: number, credentialed: boolean): string {
  let values = CACHE_CONTROL.get(ttlMs);
  if (values === undefined) {
    const maxAge = `max-age=${Math.floor(ttlMs / 1000)}`;
    values = [maxAge, `private, ${maxAge}`];
    CACHE_CONTROL.set(ttlMs, values);
  }
  return values[credentialed ? 1 : 0];
}

// Built once per TTL rather than once per request.
const CACHE_CONTROL = new Map<number, readonly [shared: string, credentialed: string]>();

/** RFC 9211 Cache-Status for each way the round cache can serve a request, plain or forced with `?fresh`. */
const CACHE_STATUS: Record<CacheOutcome, readonly [plain: string, forced: string]> = {
  hit: ['etcd-probe; hit', 'etcd-probe; hit'],
  miss: ['etcd-probe; fwd=miss', 'etcd-probe; fwd=request'],
  coalesced: ['etcd-probe; fwd=miss; collapsed', 'etcd-probe; fwd=request; collapsed'],
};

/**
 * Sets Cache-Control, Age (whole seconds since the round finished, rounded down as RFC 9111 counts
 * delta-seconds) and Cache-Status (whether this request found the round finished, started it, or
 * joined it) on an answer from a round.
 */
export function setRoundHeaders(reply: FastifyReply, read: CacheRead<unknown>, control: string, now: number, forced: boolean): void {
  reply.header('cache-control', control);
  reply.header('age', String(Math.floor(Math.max(0, now - read.completedAt) / 1000)));
  reply.header('cache-status', CACHE_STATUS[read.cache][forced ? 1 : 0]);
}
