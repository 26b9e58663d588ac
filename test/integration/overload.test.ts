import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { get } from '../helpers/http.ts';
import { startService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// Overload: far more simultaneous connections than ETCD_PROBE_MAX_CONNECTIONS while a hung member
// keeps each round in flight for the whole etcd deadline. A 503 from /healthz/etcd must mean etcd:
// every answer that arrives is the verdict, and the connections past the limit are refused, not
// answered with a 503 that a load balancer would read as "etcd failed".

let cluster: EtcdCluster;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
});

afterAll(async () => {
  await cluster?.stop();
});

type Seen = { kind: 'answer'; status: number; verdict: string | undefined } | { kind: 'refused'; code: string };

/** One GET on its own connection (no keep-alive agent), as many load balancers' health checks do. */
function once(url: string): Promise<Seen> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let verdict: string | undefined;
        try {
          verdict = (JSON.parse(text) as { status?: string }).status;
        } catch {
          verdict = undefined;
        }
        resolve({ kind: 'answer', status: res.statusCode ?? 0, verdict });
      });
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'refused', code: error.code ?? error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'refused', code: error.code ?? error.message }));
    req.end();
  });
}

function tally(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k}: ${n}`).join(', ');
}

async function dropped(service: { app: { metrics: { registry: { metrics(): Promise<string> } } } }): Promise<number> {
  const line = (await service.app.metrics.registry.metrics()).split('\n').find((l) => l.startsWith('etcd_probe_connections_dropped_total '));
  return Number(line?.split(' ')[1] ?? 'NaN');
}

describe('overload', () => {
  it('answers /healthz/etcd with the verdict or refuses the connection; never a 503 that is not about etcd', async () => {
    const limit = 16;
    const service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_MAX_CONNECTIONS: String(limit), ETCD_PROBE_TIMEOUT: '1s', ETCD_PROBE_CACHE_TTL: '0s' });
    const [hung] = (await cluster.followerIndexes()) as [number];
    try {
      expect((await get(`${service.url}/healthz/etcd`)).status).toBe(200);
      cluster.pause(hung);
      // TTL 0: every request joins or starts a round, and each round waits the full 1 s deadline of the
      // hung member (with a TTL, requests are answered stale meanwhile and never pile up: hung-member-answers).
      const before = await dropped(service);
      const started = performance.now();
      const seen: Seen[] = [];
      for (let wave = 0; wave < 4; wave++) {
        seen.push(...(await Promise.all(Array.from({ length: 100 }, () => once(`${service.url}/healthz/etcd`)))));
      }
      const ms = performance.now() - started;
      const answers = seen.filter((s) => s.kind === 'answer');
      const refused = seen.filter((s) => s.kind === 'refused');
      console.log(
        `overload: 400 requests on new connections in ${ms.toFixed(0)} ms, limit ${limit}: ` +
          `${answers.length} answered (${tally(answers.map((a) => `${a.status} ${a.verdict}`))}), ` +
          `${refused.length} refused (${tally(refused.map((r) => r.code))})`,
      );
      // The limit was really exceeded, and the service still answered.
      expect(refused.length).toBeGreaterThan(0);
      expect(answers.length).toBeGreaterThanOrEqual(limit);
      // Every answer is the verdict: degraded (one member hung) under the quorum policy, 200.
      for (const a of answers) expect(a).toEqual({ kind: 'answer', status: 200, verdict: 'degraded' });
      // Every refusal is a closed connection that the service counted, not an answer.
      for (const r of refused) expect(['ECONNRESET', 'socket hang up', 'EPIPE']).toContain(r.code);
      expect((await dropped(service)) - before).toBe(refused.length);
    } finally {
      if (cluster.members[hung]?.paused) cluster.resume(hung);
      await service.close();
    }
  });
});
