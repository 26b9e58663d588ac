import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { get } from '../helpers/http.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// Issue 26, defect 4: history only knew the rounds someone asked for (a 15-30 s scrape saw 1-2 rounds).
// Rounds now run every TTL from when the service listens, whoever polls, and stop when it closes.

const TTL_MS = 500;
let cluster: EtcdCluster;
let service: RunningService;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
  service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_CACHE_TTL: `${TTL_MS}ms` });
});

afterAll(async () => {
  await service?.close();
  await cluster?.stop();
});

const statusCalls = () => cluster.grpcStarted(0, 'Status');

describe('rounds on a cadence', () => {
  it('runs a round every TTL with nobody polling, which history then holds', async () => {
    const started = Date.now();
    // Nobody asks the service anything meanwhile; etcd's own counter shows the rounds going out.
    const before = await statusCalls();
    await expect.poll(async () => (await statusCalls()) - before, { timeout: 10_000, interval: 200 }).toBeGreaterThanOrEqual(4);
    const history = await get(`${service.url}/history`);
    expect(history.status).toBe(200);
    // The first request of all: every round history holds ran for no request.
    const elapsed = Date.now() - started;
    expect(history.body.rounds).toBeGreaterThanOrEqual(4);
    // At most one round per TTL (each starts when the latest reaches its TTL), plus the one at start.
    expect(history.body.rounds).toBeLessThanOrEqual(Math.ceil(elapsed / TTL_MS) + 2);
  });

  it('stops with the service: no round goes out after close', async () => {
    await service.close();
    const after = await statusCalls();
    // Three TTLs with no round: polled, since a round that would come comes within one TTL.
    const samples: number[] = [];
    for (let i = 0; i < 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, TTL_MS / 2));
      samples.push((await statusCalls()) - after);
    }
    expect(samples).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
