import { afterAll, beforeAll, describe, it } from 'vitest';
import { etcdVersion } from '#lab/etcd/binary.ts';
import {
  backToHealthy,
  DEADLINE_MS,
  ELECTION_TIMEOUT_MS,
  GRACE_MS,
  nameOf,
  ROUND_MS,
  startScenario,
  stopScenario,
  type Scenario,
} from '../helpers/scenario.ts';
import type { VerdictSample } from '../helpers/verdict-recorder.ts';
import { confinedTo, expectPhases, neverUnhealthy, symbolOf } from '../helpers/verdict-sequence.ts';

// Network partitions between the members of a real 3-member cluster (each in its own network namespace;
// nftables drops the packets in the hub), with etcd-probe's verdict recorded throughout and held to the
// verdict contract of issue 9. The probe reaches every member in these scenarios.

let sc: Scenario;
const context = () => `etcd ${etcdVersion()}, partitions: `;

beforeAll(async () => {
  sc = await startScenario();
});

afterAll(async () => {
  await stopScenario(sc);
});

const NEW_LEADER_BOUND_MS = 2 * ELECTION_TIMEOUT_MS + DEADLINE_MS + ROUND_MS;

describe('one member cut off', () => {
  it('a follower cut off from its peers (the probe still reaches it): degraded about it alone, the leader kept, never unhealthy', async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, 'healthy before follower cut off');
    const leader = nameOf(sc, await cluster.leaderIndex());
    const [follower] = (await cluster.followerIndexes()) as [number];
    const cutOff = nameOf(sc, follower);
    await cluster.isolateFromPeers(follower);
    recorder.mark('follower cut off from peers');
    const aboutIt = (s: VerdictSample) => confinedTo(s, cutOff) && s.leader?.name === leader;
    await recorder.until(aboutIt, 10_000);
    await recorder.observe(2 * ELECTION_TIMEOUT_MS + 2000);
    recorder.mark('follower reconnected');
    await cluster.healAll();
    await recorder.until((s) => s.status === 'healthy', 15_000);
    await recorder.observe(1000);
    expectPhases(
      recorder,
      [
        [
          'follower cut off from peers',
          {
            pattern: /^[a-z]?D+$/,
            always: { 'never unhealthy': neverUnhealthy, 'the leader stays': (s) => s.t < 0 || s.leader?.name === leader },
            // Its first read after the cut fails: the round that starts after the cut shows it.
            reaches: { what: `degraded about ${cutOff} alone`, test: aboutIt, withinMs: DEADLINE_MS + ROUND_MS, thenAlways: aboutIt },
          },
        ],
        // etcd 3.4 (no pre-vote) may hold a new election when the member, with its higher term, returns.
        ['follower reconnected', { pattern: /^[a-z]?[ED]*H+$/, always: { 'never unhealthy': neverUnhealthy } }],
      ],
      context(),
    );
  });

  it('the leader cut off from both followers (the probe reaches all): degraded with a new leader within the bound, never unhealthy', async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, 'healthy before leader cut off');
    const index = await cluster.leaderIndex();
    const old = nameOf(sc, index);
    await cluster.isolateFromPeers(index);
    recorder.mark('leader cut off from followers');
    const newLeader = (s: VerdictSample) => confinedTo(s, old) && !!s.leader && s.leader.name !== old;
    await recorder.until(newLeader, 15_000);
    await recorder.observe(2 * ELECTION_TIMEOUT_MS + 2000);
    recorder.mark('old leader reconnected');
    await cluster.healAll();
    await recorder.until((s) => s.status === 'healthy', 15_000);
    await recorder.observe(1000);
    expectPhases(
      recorder,
      [
        [
          'leader cut off from followers',
          {
            pattern: /^[a-z]?E*D+$/,
            always: { 'never unhealthy': neverUnhealthy },
            reaches: { what: 'degraded naming a new leader', test: newLeader, withinMs: NEW_LEADER_BOUND_MS, thenAlways: newLeader },
          },
        ],
        ['old leader reconnected', { pattern: /^[a-z]?[ED]*H+$/, always: { 'never unhealthy': neverUnhealthy } }],
      ],
      context(),
    );
  });
});

describe('one-way cut', () => {
  it("a follower's packets to its peers dropped (theirs still arrive): degraded about it alone, never unhealthy", async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, 'healthy before one-way cut');
    const leader = nameOf(sc, await cluster.leaderIndex());
    const [follower] = (await cluster.followerIndexes()) as [number];
    const cutOff = nameOf(sc, follower);
    const others = cluster.members.map((_, i) => i).filter((i) => i !== follower);
    await cluster.cutMany(others.map((o) => [follower, o] as const), { oneWay: true }, 'one-way');
    recorder.mark('one-way cut from follower');
    const aboutIt = (s: VerdictSample) => confinedTo(s, cutOff) && s.leader?.name === leader;
    await recorder.until(aboutIt, 10_000);
    await recorder.observe(2 * ELECTION_TIMEOUT_MS + 1000);
    recorder.mark('one-way cut healed');
    await cluster.healAll();
    await recorder.until((s) => s.status === 'healthy', 15_000);
    await recorder.observe(500);
    expectPhases(
      recorder,
      [
        [
          'one-way cut from follower',
          {
            pattern: /^[a-z]?D+$/,
            always: { 'never unhealthy': neverUnhealthy, 'the leader stays': (s) => s.t < 0 || s.leader?.name === leader },
            reaches: { what: `degraded about ${cutOff} alone`, test: aboutIt, withinMs: DEADLINE_MS + ROUND_MS, thenAlways: aboutIt },
          },
        ],
        ['one-way cut healed', { pattern: /^[a-z]?[ED]*H+$/, always: { 'never unhealthy': neverUnhealthy } }],
      ],
      context(),
    );
  });
});

describe('full partition', () => {
  it('every member cut off from every other: NO_LEADER (degraded), then QUORUM_LOST within the grace, healthy after healing', async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, 'healthy before full partition');
    await cluster.partitionAll();
    recorder.mark('full partition');
    const lost = (s: VerdictSample) => symbolOf(s) === 'Q';
    await recorder.until(lost, 15_000);
    await recorder.observe(2000);
    recorder.mark('partition healed');
    await cluster.healAll();
    await recorder.until((s) => s.status === 'healthy', 15_000);
    await recorder.observe(1000);
    expectPhases(
      recorder,
      [
        [
          'full partition',
          {
            pattern: /^[a-z]?E+Q+$/,
            reaches: { what: 'QUORUM_LOST', test: lost, withinMs: GRACE_MS + ROUND_MS + DEADLINE_MS, thenAlways: lost },
          },
        ],
        // No leader is proven until a read passes, so the grace stays spent: no NO_LEADER step on the way back.
        ['partition healed', { pattern: /^[a-z]?Q*D*H+$/ }],
      ],
      context(),
    );
  });
});
