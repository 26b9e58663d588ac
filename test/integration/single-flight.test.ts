import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '../fixtures/etcd-cluster.ts';
import { get } from '../helpers/http.ts';
import { clusterEnv, startService, type RunningService } from '../helpers/start-service.ts';

// Pollers cost etcd one round per TTL, counted on etcd's own grpc_server_started_total.

let cluster: EtcdCluster;
let service: RunningService;
const METHODS = ['Status', 'Range', 'MemberList', 'Alarm'] as const;

async function etcdCalls(): Promise<Record<(typeof METHODS)[number], number[]>> {
  const result = {} as Record<(typeof METHODS)[number], number[]>;
  for (const method of METHODS) result[method] = await Promise.all(cluster.members.map((_, i) => cluster.grpcStarted(i, method)));
  return result;
}

function delta(after: number[], before: number[]): number[] {
  return after.map((v, i) => v - (before[i] as number));
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
  // A TTL longer than 1000 requests can take on a loaded machine: a second round would then be right.
  // 1000 concurrent requests come from one address: above the default per-client cap of 64 connections.
  service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_CACHE_TTL: '30s', ETCD_PROBE_MAX_CONNECTIONS_PER_CLIENT: '2000' });
});

afterAll(async () => {
  await service?.close();
  await cluster?.stop();
});

describe('the cache and single flight', () => {
  it('1000 concurrent requests on a cold cache cause exactly one round', async () => {
    const before = await etcdCalls();
    const responses = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => get(`${service.url}${['/healthz/etcd', '/members', '/alarms', '/metrics'][i % 4]}`)),
    );
    const after = await etcdCalls();
    expect(responses.every((r) => r.status === 200)).toBe(true);
    // One Status, one Range and one MemberList per member; one Alarm (a raft proposal) for the cluster.
    expect(delta(after.Status, before.Status)).toEqual([1, 1, 1]);
    expect(delta(after.Range, before.Range)).toEqual([1, 1, 1]);
    expect(delta(after.MemberList, before.MemberList)).toEqual([1, 1, 1]);
    expect(delta(after.Alarm, before.Alarm).reduce((a, b) => a + b)).toBe(1);
    const metrics = (await get(`${service.url}/metrics`)).text;
    expect(metrics).toMatch(/^etcd_probe_rounds_total\{status="healthy"\} 1$/m);
    const served = [...metrics.matchAll(/^etcd_probe_requests_total\{route="[^"]+",cache="(\w+)"\} (\d+)$/gm)];
    const byCache = (c: string) => served.filter((m) => m[1] === c).reduce((sum, m) => sum + Number(m[2]), 0);
    expect(byCache('miss')).toBe(1);
    expect(byCache('miss') + byCache('coalesced') + byCache('hit')).toBe(1001);
  });

  it('serves from the cache within the TTL, with Cache-Control and Age', async () => {
    const before = await etcdCalls();
    const got = await get(`${service.url}/healthz/etcd`);
    expect(got.body.cached).toBe(true);
    expect(got.headers.get('cache-control')).toMatch(/^max-age=\d+$/);
    expect(Number(got.headers.get('cache-control')?.slice('max-age='.length))).toBeLessThanOrEqual(30);
    expect(got.headers.get('age')).toMatch(/^\d+$/);
    expect(delta((await etcdCalls()).Status, before.Status)).toEqual([0, 0, 0]);
  });

  it('?fresh=true starts a round, at most one per second', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const before = await etcdCalls();
    const [first, second] = await Promise.all([get(`${service.url}/healthz/etcd?fresh=true`), get(`${service.url}/healthz/etcd?fresh=true`)]);
    const third = await get(`${service.url}/healthz/etcd?fresh=true`);
    expect(first.body.cached).toBe(false);
    expect(second.body.cached).toBe(false);
    expect(third.body.cached).toBe(true);
    expect(delta((await etcdCalls()).Status, before.Status)).toEqual([1, 1, 1]);
  });

  it('rejects a bad parameter with 400 and a JSON error, and unknown routes with 404', async () => {
    const bad = await get(`${service.url}/healthz/etcd?policy=foo`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'INVALID_PARAMETER', message: "parameter 'policy' must be one of quorum, strict (got 'foo')" });
    const missing = await get(`${service.url}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'NOT_FOUND', message: 'no route GET /nope' });
  });
});
