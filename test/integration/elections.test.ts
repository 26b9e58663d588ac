import { afterAll, beforeAll, describe, it } from 'vitest';
import { etcdVersion } from '#lab/etcd/binary.ts';
import {
  backToHealthy,
  DEADLINE_MS,
  ELECTION_TIMEOUT_MS,
  nameOf,
  ROUND_MS,
  startScenario,
  stopScenario,
  type Scenario,
} from '../helpers/scenario.ts';
import type { VerdictSample } from '../helpers/verdict-recorder.ts';
import { expectPhases, leaderIsNot, neverUnhealthy, onlyAbout, symbolOf } from '../helpers/verdict-sequence.ts';

// Leader loss and quorum loss on a real 3-member cluster (each member in its own network namespace),
// with etcd-probe's verdict recorded from before the fault until after recovery. The sequences are held
// to the verdict contract of issue 9 (see verdict-sequence.ts's CONTRACT): after the leader is lost, the
// verdict names a new leader within the election timeout + one deadline + one round and then holds.

let sc: Scenario;
const context = () => `etcd ${etcdVersion()}, elections: `;

beforeAll(async () => {
  sc = await startScenario();
});

afterAll(async () => {
  await stopScenario(sc);
});

/** Degraded, a leader other than `lost` named, and every reason about `lost` alone. */
function newLeaderWithout(lost: string) {
  return (s: VerdictSample) => s.status === 'degraded' && !!s.leader && s.leader.name !== lost && onlyAbout(s, lost);
}

// raft randomizes each follower's election timeout in [1x, 2x): the bound takes the contract's terms
// (election timeout + one probe deadline + one round) with etcd's worst case for the first of them.
const NEW_LEADER_BOUND_MS = 2 * ELECTION_TIMEOUT_MS + DEADLINE_MS + ROUND_MS;

describe('leader loss', () => {
  it('leader hung (SIGSTOP), then resumed: degraded with a new leader, never unhealthy, then healthy', async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, 'healthy before hung leader');
    const leader = await cluster.leaderIndex();
    const lost = nameOf(sc, leader);
    cluster.pause(leader);
    recorder.mark('leader hung');
    await recorder.until(newLeaderWithout(lost), 15_000);
    await recorder.observe(3000);
    recorder.mark('hung leader resumed');
    cluster.resume(leader);
    await recorder.until((s) => s.status === 'healthy', 15_000);
    await recorder.observe(1000);
    expectPhases(
      recorder,
      [
        [
          'leader hung',
          {
            pattern: /^[a-z]?[ED]*D+$/,
            always: { 'never unhealthy': neverUnhealthy, 'the hung member is never named leader': leaderIsNot(lost) },
            reaches: { what: 'degraded naming a new leader', test: newLeaderWithout(lost), withinMs: NEW_LEADER_BOUND_MS, thenAlways: newLeaderWithout(lost) },
          },
        ],
        ['hung leader resumed', { pattern: /^[a-z]?[ED]*H+$/, always: { 'never unhealthy': neverUnhealthy } }],
      ],
      context(),
    );
  });

  it('leader killed (SIGKILL), then restarted: degraded with a new leader, never unhealthy, then healthy', async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, 'healthy before killed leader');
    const leader = await cluster.leaderIndex();
    const lost = nameOf(sc, leader);
    await cluster.kill(leader);
    recorder.mark('leader killed');
    await recorder.until(newLeaderWithout(lost), 15_000);
    await recorder.observe(3000);
    recorder.mark('killed leader restarted');
    await cluster.restart(leader);
    await recorder.until((s) => s.status === 'healthy', 15_000);
    await recorder.observe(1000);
    expectPhases(
      recorder,
      [
        [
          'leader killed',
          {
            pattern: /^[a-z]?[ED]*D+$/,
            always: { 'never unhealthy': neverUnhealthy, 'the killed member is never named leader': leaderIsNot(lost) },
            reaches: { what: 'degraded naming a new leader', test: newLeaderWithout(lost), withinMs: NEW_LEADER_BOUND_MS, thenAlways: newLeaderWithout(lost) },
          },
        ],
        ['killed leader restarted', { pattern: /^[a-z]?[ED]*H+$/, always: { 'never unhealthy': neverUnhealthy } }],
      ],
      context(),
    );
  });
});

describe('quorum loss', () => {
  it('two of three members killed: QUORUM_LOST from the first round, healthy again once they are back', async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, 'healthy before two killed');
    const followers = await cluster.followerIndexes();
    await Promise.all(followers.map((i) => cluster.kill(i)));
    recorder.mark('two of three killed');
    await recorder.until((s) => symbolOf(s) === 'Q', 10_000);
    await recorder.observe(2 * ELECTION_TIMEOUT_MS + 1000);
    recorder.mark('two restarted');
    await Promise.all(followers.map((i) => cluster.restart(i)));
    await recorder.until((s) => s.status === 'healthy', 20_000);
    await recorder.observe(1000);
    expectPhases(
      recorder,
      [
        [
          'two of three killed',
          {
            pattern: /^[a-z]?Q+$/,
            always: { 'QUORUM_LOST in every round that started after the kill': (s) => s.t < 0 || symbolOf(s) === 'Q' },
          },
        ],
        // Members that answer without a proven leader stay QUORUM_LOST past the grace; never a bare NO_LEADER.
        ['two restarted', { pattern: /^[a-z]?Q*D*H+$/ }],
      ],
      context(),
    );
  });
});
