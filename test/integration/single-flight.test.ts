import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedCluster } from '#lab/etcd/shared-cluster.ts';
import { get } from '../helpers/http.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// Pollers cost etcd one round per TTL, counted on etcd's own grpc_server_started_total.

// The project's shared cluster: this file only reads it.
const cluster = SharedCluster.get();
let service: RunningService;
let beforeStart: Record<(typeof METHODS)[number], number[]>;
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
  beforeStart = await etcdCalls();
  // A TTL longer than 1000 requests can take on a loaded machine: a second round would then be right.
  // 1000 concurrent requests come from one address: above the default per-client cap of 64 connections.
  service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_CACHE_TTL: '30s', ETCD_PROBE_MAX_CONNECTIONS_PER_CLIENT: '2000' });
});

afterAll(async () => {
  await service?.close();
});

describe('the cache and single flight', () => {
  it('1000 concurrent requests right after start share the one round the service started on listening', async () => {
    // The cadence starts a round when the server listens (counted from before the start): the requests
    // join it or find it finished, none starts another.
    const before = beforeStart;
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
    expect(byCache('miss')).toBe(0);
    expect(byCache('coalesced') + byCache('hit')).toBe(1001);
    // Each answer says how it was served (RFC 9211): none started the round, the cadence did.
    const statuses = responses.filter((r) => r.headers.has('cache-status')).map((r) => r.headers.get('cache-status'));
    expect(statuses.length).toBe(750);
    expect(statuses.filter((c) => c === 'etcd-probe; fwd=miss').length).toBe(0);
    expect(statuses.every((c) => ['etcd-probe; fwd=miss', 'etcd-probe; fwd=miss; collapsed', 'etcd-probe; hit'].includes(String(c)))).toBe(true);
  });

  it('serves from the cache within the TTL, with Cache-Control, Age and an ETag', async () => {
    const before = await etcdCalls();
    const got = await get(`${service.url}/healthz/etcd`);
    expect(got.headers.get('cache-status')).toBe('etcd-probe; hit');
    // RFC 9111: fresh for max-age (the TTL) minus Age (the round's age), as the service's own cache keeps it.
    expect(got.headers.get('cache-control')).toBe('max-age=30, stale-while-revalidate=2');
    expect(Number(got.headers.get('age'))).toBeLessThan(30);
    const again = await get(`${service.url}/healthz/etcd`, { headers: { 'if-none-match': String(got.headers.get('etag')) } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(delta((await etcdCalls()).Status, before.Status)).toEqual([0, 0, 0]);
  });

  it('?fresh=true starts a round, at most one per second', async () => {
    // No earlier test forced a round, so the first ?fresh=true here may start one at once.
    const before = await etcdCalls();
    const [first, second] = await Promise.all([get(`${service.url}/healthz/etcd?fresh=true`), get(`${service.url}/healthz/etcd?fresh=true`)]);
    const third = await get(`${service.url}/healthz/etcd?fresh=true`);
    // One request started the forced round, the other joined it; the third found it finished.
    expect([first, second].map((g) => g.headers.get('cache-status')).sort()).toEqual(['etcd-probe; fwd=request', 'etcd-probe; fwd=request; collapsed']);
    expect(third.headers.get('cache-status')).toBe('etcd-probe; hit');
    expect(delta((await etcdCalls()).Status, before.Status)).toEqual([1, 1, 1]);
  });

  it('rejects a bad parameter with 400 and a JSON error, and unknown routes with 404', async () => {
    const bad = await get(`${service.url}/healthz/etcd?policy=foo`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'INVALID_PARAMETER', message: 'policy: must be one of quorum, strict' });
    const typo = await get(`${service.url}/healthz/etcd?polcy=strict`);
    expect(typo.status).toBe(400);
    expect(typo.body.message).toBe("unknown query parameter 'polcy': /healthz/etcd accepts policy, fresh, verbose");
    const missing = await get(`${service.url}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'NOT_FOUND', message: 'no route GET /nope; /openapi.yaml lists the routes' });
  });
});
