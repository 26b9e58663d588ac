import { describe, expect, it } from 'vitest';
import { buildProbeCore } from '../../src/core/probe-core.ts';
import { renderCheck, runCheck } from '../../src/cli/check.ts';
import { exitCodeFor } from '../../src/cli/exit-codes.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import type { MemberSource } from '../../src/probe/member-source.ts';
import type { MemberClient } from '../../src/probe/member-client.ts';
import type { EndpointObservation } from '../../src/probe/observations.ts';
import { renderVerdictSummary } from '../../src/cli/verdict-summary.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { round, three, type FakeMember } from '../probe/observation-builders.ts';
import { snapshotOf } from '../probe/snapshot-builder.ts';

// check over a scripted member source: exit codes by verdict, both formats, and every client closed.
// The same command runs against real etcd in test/integration/cli.test.ts.

class ScriptedClient implements MemberClient {
  closed = false;
  readonly #o: EndpointObservation;
  constructor(o: EndpointObservation) {
    this.#o = o;
  }
  async status() { return this.#o.status; }
  async healthRead() { return this.#o.health; }
  async memberList() { return this.#o.memberList; }
  async alarmList() { return this.#o.alarmList ?? { ok: true as const, value: [], ms: 1 }; }
  async release() {}
  close() { this.closed = true; }
}

function scripted(members: FakeMember[]) {
  const observations = round(members).endpoints;
  const clients: ScriptedClient[] = [];
  let sourceClosed = false;
  const source: MemberSource = {
    mode: 'static',
    async targets() { return observations.map((o) => o.target); },
    connect(target) {
      const client = new ScriptedClient(observations.find((o) => o.target.key === target.key) as EndpointObservation);
      clients.push(client);
      return client;
    },
    async close() { sourceClosed = true; },
  };
  return { source, clients, sourceClosed: () => sourceClosed };
}

async function check(members: FakeMember[], output: 'table' | 'json' = 'table', canStop: string | null = null) {
  const result = loadConfig({ env: {}, argv: [], now: new Date() });
  if (!result.ok) throw new Error('bad test config');
  const s = scripted(members);
  let out = '';
  const code = await runCheck({
    config: result.config,
    tls: result.tls,
    output,
    canStop,
    write: (t) => (out += t),
    buildCore: (o) => buildProbeCore({ ...o, source: s.source }),
  });
  return { code, out, ...s };
}

describe('exitCodeFor', () => {
  it('maps healthy, degraded and unhealthy to 0, 1 and 2', () => {
    expect([exitCodeFor('healthy'), exitCodeFor('degraded'), exitCodeFor('unhealthy')]).toEqual([0, 1, 2]);
  });
});

describe('runCheck', () => {
  it.each([
    ['healthy', three(), 0],
    ['degraded', three({ c: { state: 'unreachable' } }), 1],
    ['unhealthy', three({ a: { state: 'unhealthy' }, b: { state: 'unreachable' }, c: { state: 'unreachable' } }), 2],
  ] as const)('exits by the verdict when the cluster is %s, and closes every client and the source', async (status, members, code) => {
    const r = await check([...members]);
    expect(r.code).toBe(code);
    expect(r.out).toContain(`status: ${status}\n`);
    expect(r.clients.length).toBeGreaterThan(0);
    expect(r.clients.every((c) => c.closed)).toBe(true);
    expect(r.sourceClosed()).toBe(true);
  });

  it('prints the /healthz/etcd document with -o json, valid against openapi.yaml', async () => {
    const r = await check(three({ c: { state: 'unreachable' } }), 'json');
    const body = JSON.parse(r.out);
    expect(body.status).toBe('degraded');
    // The round's document: nothing in it depends on when it is read (Age is an HTTP header).
    expect(Object.keys(body)).not.toContain('ageSeconds');
    expect(body.checkedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(checkResponse('GET', '/healthz/etcd', { status: 200, contentType: 'application/json', body })).toEqual([]);
  });
});

describe('the table report', () => {
  it('follows the table with the verdict, quorum, leader and each reason with its hint', () => {
    const snapshot = snapshotOf(round(three({ c: { state: 'unreachable' } })));
    const text = renderCheck(snapshot, { policy: 'quorum' }, 'table', snapshot.checkedAt);
    const summary = renderVerdictSummary(snapshot);
    expect(text.endsWith(summary)).toBe(true);
    expect(summary).toContain('status: degraded\n');
    expect(summary).toContain('quorum: 2 of 3 voting members healthy, can lose 0 more\n');
    expect(summary).toContain('leader: m-a (a)\n');
    expect(summary).toMatch(/\n {2}MEMBER_UNREACHABLE \(degraded\): m-c at https:\/\/m-c:2379: connection refused\n {4}hint: Check that etcd runs on that member/);
  });

  it('says so when there are no reasons', () => {
    expect(renderVerdictSummary(snapshotOf(round(three())))).toContain('\nreasons: none\n');
  });
});

describe('runCheck --can-stop', () => {
  it.each([
    ['a follower of a healthy cluster', three(), 'm-b', 0, /^m-b \(b\): safe to stop\nafter: degraded; 2 of 3 voting members healthy, 2 required\n/],
    ['the leader: safe, but it costs an election', three(), 'a', 0, /safe to stop[\s\S]*LEADER_STOP_COSTS_ELECTION \(info\)[\s\S]*etcdctl move-leader/],
    ['a healthy member beside a dead one', three({ c: { state: 'unreachable' } }), 'm-a', 1, /^m-a \(a\): NOT safe to stop\nafter: unhealthy;[\s\S]*QUORUM_LOST/],
    ['the dead member itself', three({ c: { state: 'unreachable' } }), 'm-c', 0, /^m-c \(c\): safe to stop/],
    ['any member when quorum is lost', three({ a: { state: 'unhealthy' }, b: { state: 'unreachable' }, c: { state: 'unreachable' } }), 'm-a', 2, /NOT safe to stop \(the cluster is unhealthy now\)/],
  ] as const)('%s → exit %i', async (_name, members, member, code, text) => {
    const r = await check([...members], 'table', member);
    expect(r.code).toBe(code);
    expect(r.out).toMatch(text);
    expect(r.clients.every((c) => c.closed)).toBe(true);
  });

  it('answers JSON with -o json', async () => {
    const r = await check(three(), 'json', 'm-c');
    expect(JSON.parse(r.out)).toMatchObject({ member: { id: 'c', name: 'm-c' }, action: 'stop', safe: true, after: { status: 'degraded' } });
  });

  it('refuses an unknown member as a command-line mistake, naming the members', async () => {
    await expect(check(three(), 'table', 'nobody')).rejects.toThrow('--can-stop: no member has that name or ID; members: m-a (a), m-b (b), m-c (c)');
  });
});
