import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { eventually, get, type Got } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// History and the disruption budget against a real 3-member TLS cluster: the leader moved for real
// (etcdctl move-leader's RPC, by the test: etcd-probe never writes), a member killed and restarted
// again and again, and the budget with every member up, one down, and quorum lost. Each scenario gets a
// service of its own, so that one's history does not bleed into the next.

let cluster: EtcdCluster;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
});

afterAll(async () => {
  await cluster?.stop();
});

async function service(env: Record<string, string> = {}): Promise<RunningService> {
  return startService({ ...clusterEnv(cluster), ETCD_PROBE_TIMEOUT: '1s', ETCD_PROBE_CACHE_TTL: '0s', ...env });
}

async function json(s: RunningService, path: string, documented: string = path.split('?')[0] as string): Promise<Got> {
  const got = await get(`${s.url}${path}`);
  expect(checkResponse('GET', documented, got)).toEqual([]);
  return got;
}

const codes = (got: Got) => (got.body.reasons as { code: string }[]).map((r) => r.code);

/** The hex IDs of the members by name, as the service reports them. */
async function idsByName(s: RunningService): Promise<Map<string, string>> {
  const members = (await json(s, '/members')).body.members as { id: string; name: string }[];
  return new Map(members.map((m) => [m.name, m.id]));
}

describe('the leader moved four times', () => {
  let s: RunningService;
  beforeAll(async () => {
    s = await service();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('gives FREQUENT_LEADER_CHANGES and lists the changes in /history, in time order', async () => {
    // A round sees the first leader before the first move, so that the move is a change it can count.
    await eventually(() => json(s, '/healthz/etcd'), (g) => typeof g.body.leader?.name === 'string', 10_000, 50);
    const moves: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { from, to } = await cluster.moveLeader();
      moves.push(`${from}→${to}`);
      // Each change is seen by a round before the next move.
      const seen = await eventually(() => json(s, '/healthz/etcd'), (g) => g.body.leader?.name === to, 10_000, 50);
      expect(seen.body.leader?.name).toBe(to);
    }
    const health = await json(s, '/healthz/etcd');
    expect(codes(health)).toContain('FREQUENT_LEADER_CHANGES');
    expect(health.body.status).toBe('degraded');
    const reason = (health.body.reasons as { code: string; message: string }[]).find((r) => r.code === 'FREQUENT_LEADER_CHANGES');
    expect(reason?.message).toMatch(/^\d+ leader elections in the last 15m \(4 or more is frequent\): /);

    const history = await json(s, '/history');
    const leaderChanges = (history.body.transitions as { kind: string; at: string; from: { name: string }; to: { name: string } }[]).filter((t) => t.kind === 'leader');
    expect(leaderChanges.map((t) => `${t.from.name}→${t.to.name}`)).toEqual(moves);
    const times = leaderChanges.map((t) => Date.parse(t.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(history.body.elections).toBeGreaterThanOrEqual(4);

    const metrics = (await get(`${s.url}/metrics`)).text;
    expect(Number(/^etcd_probe_leader_changes_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(4);
  });

  it('answers /history?since= and ?member= for that window only', async () => {
    const ids = await idsByName(s);
    const [name, id] = [...ids.entries()][0] as [string, string];
    const one = await json(s, `/history?member=${id}`);
    expect(one.body.members.map((m: { member: { name: string } }) => m.member.name)).toEqual([name]);
    const recent = await json(s, '/history?since=1ms');
    expect(recent.body.rounds).toBeLessThanOrEqual(1);
    expect((await get(`${s.url}/history?since=yesterday`)).status).toBe(400);
    expect((await get(`${s.url}/history?member=nobody`)).status).toBe(404);
  });
});

describe('a member killed and restarted again and again', () => {
  let s: RunningService;
  beforeAll(async () => {
    s = await service();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('gives MEMBER_FLAPPING, and its last failure stays in /history after it recovers', async () => {
    const [victim] = (await cluster.followerIndexes()) as [number];
    const name = cluster.member(victim).name;
    const stateOf = async () => ((await json(s, '/members')).body.members as { name: string; reachable: boolean }[]).find((m) => m.name === name)?.reachable;
    // History starts with the rounds the service ran: first one with every member up.
    expect((await eventually(() => json(s, '/healthz/etcd'), (g) => g.body.status === 'healthy', 10_000, 50)).body.status).toBe('healthy');
    for (let i = 0; i < 2; i++) {
      await cluster.kill(victim);
      expect(await eventually(stateOf, (up) => up === false, 10_000, 50)).toBe(false);
      await cluster.restart(victim);
      expect(await eventually(stateOf, (up) => up === true, 10_000, 50)).toBe(true);
    }
    const health = await eventually(() => json(s, '/healthz/etcd'), (g) => codes(g).includes('MEMBER_FLAPPING'), 10_000, 100);
    const flapping = (health.body.reasons as { code: string; member: { name: string }; message: string }[]).find((r) => r.code === 'MEMBER_FLAPPING');
    expect(flapping?.member.name).toBe(name);
    expect(flapping?.message).toMatch(new RegExp(`^${name} changed state 4 times in the last 10m \\(healthy → unreachable → healthy → unreachable → healthy\\)$`));

    const history = await json(s, '/history');
    const record = (history.body.members as { member: { name: string }; state: string; changes: number; lastFailure: { code: string; message: string } | null }[]).find((m) => m.member.name === name);
    expect(record).toMatchObject({ state: 'healthy', changes: 4, lastFailure: { code: 'CONNECTION_REFUSED' } });
    expect(record?.lastFailure?.message).toMatch(/connection refused/);
    const transitions = (history.body.transitions as { kind: string; member?: { name: string; id: string }; to: string }[]).filter((t) => t.kind === 'member' && t.member?.name === name);
    expect(transitions.map((t) => t.to)).toEqual(['unreachable', 'healthy', 'unreachable', 'healthy']);
    const metrics = (await get(`${s.url}/metrics`)).text;
    expect(metrics).toMatch(new RegExp(`^etcd_probe_member_transitions_total\\{id="${transitions[0]?.member?.id}",to="unreachable"\\} 2$`, 'm'));
  });
});

describe('the disruption budget', () => {
  let s: RunningService;
  beforeAll(async () => {
    s = await service();
  });
  afterAll(async () => {
    await s?.close();
    for (const [i, m] of cluster.members.entries()) if (!m.process) await cluster.restart(i);
  });

  const answer = (path: string) => json(s, path, path.startsWith('/disruption/') ? '/disruption/{member}' : path);

  it('a healthy cluster: one may stop; each member may stop or leave; the leader costs an election', async () => {
    const budget = await answer('/disruption');
    expect(budget.body.disruptionsAllowed).toBe(1);
    expect((await json(s, '/healthz/etcd')).body.disruptionsAllowed).toBe(1);
    for (const m of budget.body.members) expect([m.member.name, m.stop.safe, m.remove.safe]).toEqual([m.member.name, true, true]);
    const leader = cluster.member(await cluster.leaderIndex()).name;
    const ofLeader = await answer(`/disruption/${leader}`);
    expect(ofLeader.status).toBe(200);
    expect(codes(ofLeader)).toContain('LEADER_STOP_COSTS_ELECTION');
    expect(ofLeader.body).toMatchObject({ action: 'stop', safe: true, after: { status: 'degraded', quorum: { healthyVoting: 2, required: 2 } } });
    expect((await get(`${s.url}/metrics`)).text).toMatch(/^etcd_probe_disruptions_allowed 1$/m);
  });

  it('one member down: none more may stop; stop and remove answered for each member', async () => {
    const [victim] = (await cluster.followerIndexes()) as [number];
    const dead = cluster.member(victim).name;
    await cluster.kill(victim);
    const budget = await eventually(() => answer('/disruption'), (g) => g.body.disruptionsAllowed === 0, 10_000, 50);
    expect(budget.body.disruptionsAllowed).toBe(0);
    for (const m of cluster.members) {
      const stop = await answer(`/disruption/${m.name}?action=stop`);
      const remove = await answer(`/disruption/${m.name}?action=remove`);
      const expected = m.name === dead ? 200 : 409;
      expect([m.name, stop.status, remove.status]).toEqual([m.name, expected, expected]);
      if (m.name !== dead) expect(stop.body.after.status).toBe('unhealthy');
    }
    const removeDead = await answer(`/disruption/${dead}?action=remove`);
    expect(removeDead.body.after).toMatchObject({ status: 'healthy', quorum: { voting: 2, required: 2, healthyVoting: 2 } });
    expect((await get(`${s.url}/disruption/nobody`)).status).toBe(404);
    expect((await get(`${s.url}/disruption/${dead}?action=reboot`)).status).toBe(400);
  });

  it('quorum lost: nothing may stop or leave, and the budget is 0', async () => {
    const alive = cluster.members.flatMap((m, i) => (m.process ? [i] : []));
    await cluster.kill(alive[0] as number);
    const budget = await eventually(() => answer('/disruption'), (g) => g.body.status === 'unhealthy', 10_000, 50);
    expect(budget.body.disruptionsAllowed).toBe(0);
    for (const m of budget.body.members) expect([m.stop.safe, m.remove.safe]).toEqual([false, false]);
    for (const m of cluster.members) expect((await answer(`/disruption/${m.name}`)).status).toBe(409);
  });
});
