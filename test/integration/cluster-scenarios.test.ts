import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { eventually, get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// A real 3-member etcd cluster with TLS; members are killed, hung and restarted for real. The service
// runs with a 1 s call deadline and TTL 0 (every request is a round) so that each scenario is observed
// at once; the cache itself is covered by single-flight.test.ts.

const TIMEOUT_MS = 1000;
let cluster: EtcdCluster;
let service: RunningService;

function codes(body: { reasons: { code: string }[] }): string[] {
  return body.reasons.map((r) => r.code).sort();
}

async function health(query = '') {
  const got = await get(`${service.url}/healthz/etcd${query}`);
  expect(checkResponse('GET', '/healthz/etcd', got)).toEqual([]);
  return got;
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
  service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_TIMEOUT: `${TIMEOUT_MS}ms`, ETCD_PROBE_CACHE_TTL: '0s' });
});

afterAll(async () => {
  await service?.close();
  await cluster?.stop();
});

describe('a healthy cluster', () => {
  it('is healthy, with quorum facts, the leader and the cluster ID', async () => {
    const got = await health();
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      status: 'healthy',
      policy: 'quorum',
      mode: 'static',
      reasons: [],
      quorum: { members: 3, voting: 3, required: 2, healthyVoting: 3, faultTolerance: 1 },
    });
    expect(got.body.clusterId).toMatch(/^[0-9a-f]{1,16}$/);
    const leader = cluster.member(await cluster.leaderIndex());
    expect(got.body.leader.name).toBe(leader.name);
  });

  it('lists three members with their status, as documented', async () => {
    const got = await get(`${service.url}/members`);
    expect(got.status).toBe(200);
    expect(checkResponse('GET', '/members', got)).toEqual([]);
    expect(got.body.members.map((m: { name: string }) => m.name).sort()).toEqual(['m1', 'm2', 'm3']);
    for (const m of got.body.members) {
      expect(m).toMatchObject({ reachable: true, healthy: true, isLearner: false, error: null, alarms: [] });
      expect(m.status.version).toMatch(/^3\.\d+\.\d+/);
      expect(m.status.raftAppliedIndex).toBeGreaterThan(0);
      expect(m.id).toMatch(/^[0-9a-f]{1,16}$/);
    }
    expect(got.body.members.filter((m: { isLeader: boolean }) => m.isLeader)).toHaveLength(1);
  });

  it('finds one member by name and by hex ID, and 404s an unknown one', async () => {
    const byName = await get(`${service.url}/members/m2`);
    expect(byName.status).toBe(200);
    expect(checkResponse('GET', '/members/{idOrName}', byName)).toEqual([]);
    const byId = await get(`${service.url}/members/${byName.body.id}`);
    expect(byId.body.name).toBe('m2');
    const missing = await get(`${service.url}/members/nobody`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('MEMBER_NOT_FOUND');
    expect(missing.body.message).toMatch(/m1 \([0-9a-f]+\)/);
    expect(checkResponse('GET', '/members/{idOrName}', missing)).toEqual([]);
  });

  it('reads no alarms from the alarm list', async () => {
    const got = await get(`${service.url}/alarms`);
    expect(got.status).toBe(200);
    expect(checkResponse('GET', '/alarms', got)).toEqual([]);
    expect(got.body).toMatchObject({ source: 'alarm-list', alarms: [] });
  });

  it('answers kube-style text with ?verbose and with Accept: text/plain', async () => {
    const verbose = await get(`${service.url}/healthz/etcd?verbose`);
    expect(verbose.contentType).toMatch(/^text\/plain/);
    expect(verbose.text).toMatch(/^\[\+\]member m1 ok/m);
    expect(verbose.text).toMatch(/^\[\+\]quorum ok \(3 of 3 voting members healthy, can lose 1 more\)$/m);
    expect(verbose.text.trimEnd().split('\n').at(-1)).toBe('healthz check passed');
    const accepted = await get(`${service.url}/healthz/etcd`, { headers: { accept: 'text/plain' } });
    expect(accepted.text.trimEnd().split('\n').at(-1)).toBe('healthz check passed');
  });
});

describe('one member SIGKILLed, then restarted', () => {
  let killed: number;

  beforeAll(async () => {
    [killed] = (await cluster.followerIndexes()) as [number];
    await cluster.kill(killed);
  });

  it('is degraded: 200 under quorum, 503 under strict, naming the member and the refusal', async () => {
    const got = await health();
    expect(got.status).toBe(200);
    expect(got.body.status).toBe('degraded');
    expect(codes(got.body)).toEqual(['MEMBER_UNREACHABLE']);
    const reason = got.body.reasons[0];
    expect(reason.member.name).toBe(cluster.member(killed).name);
    expect(reason.message).toMatch(/connection refused/);
    expect(got.body.quorum).toMatchObject({ healthyVoting: 2, faultTolerance: 0 });

    const strict = await health('?policy=strict');
    expect(strict.status).toBe(503);
    expect(strict.body).toMatchObject({ status: 'degraded', policy: 'strict' });
    const text = await get(`${service.url}/healthz/etcd?verbose&policy=strict`);
    expect(text.status).toBe(503);
    expect(text.text).toMatch(new RegExp(`^\\[-\\]member ${cluster.member(killed).name} failed: connection refused`, 'm'));
    expect(text.text.trimEnd().split('\n').at(-1)).toBe('healthz check failed');
  });

  it('shows the member down in /members and /metrics', async () => {
    const members = await get(`${service.url}/members`);
    const down = members.body.members.find((m: { name: string }) => m.name === cluster.member(killed).name);
    expect(down).toMatchObject({ reachable: false, healthy: false, status: null, error: { code: 'CONNECTION_REFUSED' } });
    const metrics = await get(`${service.url}/metrics`);
    expect(metrics.text).toMatch(new RegExp(`^etcd_probe_member_up\\{member="${cluster.member(killed).name}",id="[0-9a-f]+"\\} 0$`, 'm'));
    expect(metrics.text).toMatch(/^etcd_probe_cluster_status\{status="degraded"\} 1$/m);
  });

  it('logs the change of verdict at warn with its reasons', () => {
    const change = service.logs.at('warn').find((l) => l.to === 'degraded');
    expect(change?.from).toBe('healthy');
    expect(JSON.stringify(change?.reasons)).toContain('MEMBER_UNREACHABLE');
  });

  it('is healthy again within one TTL once the member is back', async () => {
    const ttlMs = 2000;
    const cached = await startService({ ...clusterEnv(cluster), ETCD_PROBE_TIMEOUT: `${TIMEOUT_MS}ms`, ETCD_PROBE_CACHE_TTL: `${ttlMs}ms` });
    try {
      expect((await get(`${cached.url}/healthz/etcd`)).body.status).toBe('degraded');
      await cluster.restart(killed);
      const back = Date.now();
      const got = await eventually(() => get(`${cached.url}/healthz/etcd`), (g) => g.body.status === 'healthy', ttlMs + 3000);
      expect(got.body.status).toBe('healthy');
      expect(got.body.quorum.healthyVoting).toBe(3);
      // The degraded answer may be served until its TTL runs out; the first round after that sees the member.
      expect(Date.now() - back).toBeLessThan(ttlMs + 1000);
    } finally {
      await cached.close();
    }
  });
});

describe('one member SIGSTOPped (hung)', () => {
  let hung: number;

  beforeAll(async () => {
    [hung] = (await cluster.followerIndexes()) as [number];
    cluster.pause(hung);
  });

  afterAll(async () => {
    cluster.resume(hung);
    await cluster.waitHealthy();
  });

  it('is degraded, answered within the timeout + 500 ms', async () => {
    for (let i = 0; i < 3; i++) {
      const got = await health();
      expect(got.ms).toBeLessThan(TIMEOUT_MS + 500);
      expect(got.body.status).toBe('degraded');
      expect(codes(got.body)).toEqual(['MEMBER_UNREACHABLE']);
      expect(got.body.reasons[0].message).toMatch(new RegExp(`no answer from .* within ${TIMEOUT_MS}ms`));
    }
  });
});

describe('two of three members down', () => {
  beforeAll(async () => {
    for (const i of await cluster.followerIndexes()) await cluster.kill(i);
  });

  afterAll(async () => {
    await Promise.all(cluster.members.map((m, i) => (m.process ? null : cluster.restart(i))));
    await cluster.waitHealthy();
  });

  it('is unhealthy with QUORUM_LOST, 503 under both policies, within the timeout + 500 ms', async () => {
    const got = await health();
    expect(got.ms).toBeLessThan(TIMEOUT_MS + 500);
    expect(got.status).toBe(503);
    expect(got.body.status).toBe('unhealthy');
    expect(codes(got.body)).toContain('QUORUM_LOST');
    expect(codes(got.body).filter((c) => c === 'MEMBER_UNREACHABLE')).toHaveLength(2);
    expect(got.body.quorum).toMatchObject({ voting: 3, required: 2, healthyVoting: 0, faultTolerance: 0 });
    const lost = got.body.reasons.find((r: { code: string }) => r.code === 'QUORUM_LOST');
    expect(lost.hint).toMatch(/do not scale or roll out/i);
    expect((await health('?policy=strict')).status).toBe(503);
  });

  it('reads alarms from Status when the alarm list lacks a quorum', async () => {
    const got = await get(`${service.url}/alarms`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ source: 'status', alarms: [] });
  });

  it('stays QUORUM_LOST, never naming a leader, also once the lone member steps down (not an election: 1 of 3 answers)', async () => {
    // The lone member keeps naming the old leader until its election timeout, then names none.
    const lone = (members: { reachable: boolean; status: { leaderId: string | null } | null }[]) => members.find((m) => m.reachable);
    const seen = await eventually(() => get(`${service.url}/members`), (g) => lone(g.body.members)?.status?.leaderId === null, 10_000, 200);
    expect(lone(seen.body.members)?.status?.leaderId).toBeNull();
    const got = await health();
    expect(codes(got.body)).toContain('QUORUM_LOST');
    expect(codes(got.body)).not.toContain('NO_LEADER');
    expect(got.body.leader).toBeNull();
    expect(got.body.quorum).toMatchObject({ answering: 1, confirmed: false, faultTolerance: 0 });
  });
});
