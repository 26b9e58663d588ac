import { HEALTHZ, type BenchContext } from './context.ts';
import { timedGetHeaders } from './load.ts';
import { metric, type Metric } from './report.ts';
import { SETTINGS as S } from './settings.ts';
import { percentile, round } from './stats.ts';

/** Resolves after ms (the poller's pace, not a wait for a condition). */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls the cached instance's /healthz/etcd every hungPollEveryMs for hungPollTtls TTLs while one follower
 * is SIGSTOPped: each round then lasts the timeout, and the answers must not wait on it (stale while the
 * next round runs). Prints p50/p99/max latency against the 100 ms target, how many answers were stale,
 * and the oldest Age against the bound TTL + timeout.
 */
export async function hungPoll(ctx: BenchContext): Promise<Metric[]> {
  const { cluster, cached } = ctx;
  const follower = (await cluster.followerIndexes())[0];
  if (follower === undefined) throw new Error('no follower to pause');
  const durationMs = S.hungPollTtls * S.cachedTtlS * 1000;
  ctx.step(`hung member, polled: SIGSTOP ${cluster.member(follower).name}, GET ${HEALTHZ} every ${S.hungPollEveryMs} ms for ${durationMs / 1000} s (TTL ${S.cachedTtl}, timeout ${S.timeout})`);
  const samples: { ms: number; status: number; age: number; stale: boolean }[] = [];
  cluster.pause(follower);
  try {
    const end = performance.now() + durationMs;
    while (performance.now() < end) {
      const started = performance.now();
      const { ms, status, headers } = await timedGetHeaders(`${cached.url}${HEALTHZ}`);
      samples.push({ ms, status, age: Number(headers.age), stale: String(headers['cache-status']).includes('detail=stale-while-revalidate') });
      await pause(Math.max(0, S.hungPollEveryMs - (performance.now() - started)));
    }
  } finally {
    cluster.resume(follower);
    ctx.step('resumed; waiting for the cluster to be healthy');
    await cluster.waitHealthy();
  }
  const latencies = samples.map((s) => s.ms);
  const slowest = [...latencies].sort((a, b) => b - a).slice(0, 5).map((ms) => round(ms, 1));
  const boundS = S.cachedTtlS + Math.ceil(S.timeoutMs / 1000);
  const statuses = [...new Set(samples.map((s) => s.status))].join('/');
  return [
    metric('hungPoll.p50', 'one follower hung, polled every 100 ms: p50 latency', percentile(latencies, 50), 'ms'),
    metric('hungPoll.p99', 'one follower hung, polled every 100 ms: p99 latency', percentile(latencies, 99), 'ms', { op: '<=', value: S.hungPollP99MaxMs }, `${samples.length} requests, HTTP ${statuses}; slowest ${slowest.join(', ')} ms.`),
    metric('hungPoll.max', 'one follower hung, polled every 100 ms: max latency', Math.max(...latencies), 'ms'),
    metric('hungPoll.stale', 'one follower hung, polled: answers given stale while a round ran', samples.filter((s) => s.stale).length, 'answers'),
    metric('hungPoll.maxAge', 'one follower hung, polled: oldest Age answered', Math.max(...samples.map((s) => s.age)), 's', { op: '<=', value: boundS }, `bound: TTL + timeout = ${boundS} s.`),
  ];
}
