import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { get, type Got } from '../helpers/http.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// Issue 26, defect 3: with one member hung every round lasts the call timeout, and /healthz/etcd must
// still answer at once (stale-while-revalidate), never older than TTL + timeout; ?fresh=true waits.

const TTL_S = 1;
const TIMEOUT_S = 1;
/** Far below the hung member's 1 s deadline: a poll that waited on it would take about 1000 ms. */
const QUICK_MS = 500;

let cluster: EtcdCluster;
let service: RunningService;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
  service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_CACHE_TTL: `${TTL_S}s`, ETCD_PROBE_TIMEOUT: `${TIMEOUT_S}s` });
});

afterAll(async () => {
  await service?.close();
  await cluster?.stop();
});

describe('a hung member', () => {
  it('never holds up a poll: answers come at once, stale while a round runs, at most TTL + timeout old', async () => {
    const [hung] = (await cluster.followerIndexes()) as [number];
    const name = cluster.member(hung).name;
    await expect.poll(async () => (await get(`${service.url}/healthz/etcd`)).body.status, { timeout: 10_000 }).toBe('healthy');
    cluster.pause(hung);
    try {
      const polls: Got[] = [];
      const until = Date.now() + 5 * (TTL_S + TIMEOUT_S) * 1000;
      // A poll every 100 ms over five rounds of TTL + timeout, kept in order.
      while (Date.now() < until) {
        const started = Date.now();
        polls.push(await get(`${service.url}/healthz/etcd`));
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - started))));
      }
      const slow = polls.filter((p) => p.ms >= QUICK_MS).map((p) => `${Math.round(p.ms)} ms (${p.headers.get('cache-status')})`);
      expect(slow, 'polls that waited').toEqual([]);
      for (const p of polls) {
        expect(p.status).toBe(200);
        expect(Number(p.headers.get('age'))).toBeLessThanOrEqual(TTL_S + TIMEOUT_S);
      }
      // Rounds did run behind the answers and took the member's deadline: some answers were stale.
      const stale = polls.filter((p) => p.headers.get('cache-status')?.endsWith('detail=stale-while-revalidate'));
      expect(stale.length).toBeGreaterThan(0);
      for (const p of stale) expect(p.headers.get('cache-control')).toBe(`max-age=${TTL_S}, stale-while-revalidate=${TIMEOUT_S}`);
      // The sequence: healthy (the round before the pause), then degraded naming the hung member, and so on to the end.
      const verdicts = polls.map((p) => p.body.status as string);
      const firstDegraded = verdicts.indexOf('degraded');
      expect(firstDegraded).toBeGreaterThanOrEqual(0);
      expect(verdicts.slice(0, firstDegraded).every((v) => v === 'healthy')).toBe(true);
      expect(verdicts.slice(firstDegraded).every((v) => v === 'degraded')).toBe(true);
      expect(JSON.stringify(polls.at(-1)?.body.reasons)).toContain(name);

      // ?fresh=true does not take the cached round: it waits for a new one (which waits on the member).
      const fresh = await get(`${service.url}/healthz/etcd?fresh=true`);
      expect(fresh.headers.get('cache-status')).toMatch(/^etcd-probe; fwd=request(; collapsed)?$/);
      expect(fresh.headers.get('age')).toBe('0');
      expect(fresh.body.status).toBe('degraded');
    } finally {
      cluster.resume(hung);
    }
  });

  it('makes /disruption wait for a round rather than answer from one past its TTL', async () => {
    await expect.poll(async () => (await get(`${service.url}/healthz/etcd`)).body.status, { timeout: 15_000 }).toBe('healthy');
    const [hung] = (await cluster.followerIndexes()) as [number];
    cluster.pause(hung);
    try {
      // Once the latest round is past its TTL (a round waiting on the member in flight), /disruption waits for it.
      const age = () => Date.now() - (service.app.cache.peek()?.completedAt ?? 0);
      await expect.poll(age, { timeout: 5000, interval: 20 }).toBeGreaterThanOrEqual(TTL_S * 1000 + 50);
      const res = await get(`${service.url}/disruption`);
      expect(res.headers.get('cache-status')).not.toContain('stale');
      expect(Number(res.headers.get('age'))).toBe(0);
    } finally {
      cluster.resume(hung);
    }
  });
});
