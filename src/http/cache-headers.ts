import type { FastifyReply } from 'fastify';
import type { CacheRead } from '../probe/round-cache.ts';

/** Sets `Cache-Control: max-age=<seconds left of the TTL>` and `Age`, so HTTP caches and pollers agree with ours. */
export function setCacheHeaders(reply: FastifyReply, read: CacheRead<unknown>, ttlMs: number, now: number): void {
  const ageMs = Math.max(0, now - read.completedAt);
  const remaining = Math.max(0, Math.floor((ttlMs - ageMs) / 1000));
  reply.header('cache-control', `max-age=${remaining}`);
  reply.header('age', String(Math.floor(ageMs / 1000)));
}
