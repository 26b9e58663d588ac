import { afterAll, beforeAll, describe, it } from 'vitest';
import { etcdVersion } from '#lab/etcd/binary.ts';
import type { CutAction } from '#lab/netns/link-faults.ts';
import { backToHealthy, DEADLINE_MS, nameOf, ROUND_MS, startScenario, stopScenario, type Scenario } from '../helpers/scenario.ts';
import type { VerdictSample } from '../helpers/verdict-recorder.ts';
import { expectPhases, neverUnhealthy, unreachable } from '../helpers/verdict-sequence.ts';

// etcd-probe cut off from members that are fine among themselves (the cluster keeps its quorum and its
// leader): a read that passes proves quorum, so the verdict must never say QUORUM_LOST, however few
// members the probe reaches. Each cut comes as a black hole (drop: calls time out) and as a refusal
// (reject: calls fail at once).

let sc: Scenario;
const context = () => `etcd ${etcdVersion()}, probe cuts: `;

beforeAll(async () => {
  sc = await startScenario();
});

afterAll(async () => {
  await stopScenario(sc);
});

/** Degraded with exactly these members unreachable and nothing else wrong but the unknown margin. */
function cutOffFrom(names: readonly string[], marginUnknown: boolean) {
  const expected = [...names].sort().join(',');
  return (s: VerdictSample) =>
    s.status === 'degraded' &&
    unreachable(s).sort().join(',') === expected &&
    s.codes.includes('QUORUM_MARGIN_UNKNOWN') === marginUnknown &&
    s.codes.every((c) => c === 'MEMBER_UNREACHABLE' || c === 'QUORUM_MARGIN_UNKNOWN');
}

describe.each(['drop', 'reject'] as CutAction[])('the probe cut off (%s)', (action) => {
  it('from two of three members, the leader among them: degraded with QUORUM_MARGIN_UNKNOWN, never QUORUM_LOST', async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, `healthy before probe cut from two (${action})`);
    const leader = await cluster.leaderIndex();
    // The probe keeps a follower: the leader it names is then one the probe cannot reach.
    const [kept] = (await cluster.followerIndexes()) as [number];
    const cut = cluster.members.map((_, i) => i).filter((i) => i !== kept);
    const names = cut.map((i) => nameOf(sc, i));
    const fault = await cluster.cutMany(cut.map((i) => ['probe', i] as const), { action });
    const label = `probe cut from ${names.join(' and ')} (${action})`;
    recorder.mark(label);
    const expected = cutOffFrom(names, true);
    await recorder.until(expected, DEADLINE_MS + ROUND_MS + 3000);
    await recorder.observe(3000);
    const healed = `probe reconnected to ${names.join(' and ')} (${action})`;
    recorder.mark(healed);
    await fault.heal();
    await recorder.until((s) => s.status === 'healthy', 15_000);
    await recorder.observe(500);
    const leaderName = nameOf(sc, leader);
    expectPhases(
      recorder,
      [
        [
          label,
          {
            pattern: /^[a-z]?D+$/,
            always: {
              'never unhealthy': neverUnhealthy,
              'the leader is named, flagged unreachable': (s) => s.t < 0 || (s.leader?.name === leaderName && s.leader.reachable === false),
            },
            reaches: { what: `degraded, ${names.join(' and ')} unreachable, margin unknown`, test: expected, withinMs: DEADLINE_MS + ROUND_MS, thenAlways: expected },
          },
        ],
        [healed, { pattern: /^[a-z]?D*H+$/, always: { 'never unhealthy': neverUnhealthy } }],
      ],
      context(),
    );
  });

  it('from the leader alone: degraded, the leader flagged unreachable, never unhealthy', async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, `healthy before probe cut from the leader (${action})`);
    const leader = await cluster.leaderIndex();
    const name = nameOf(sc, leader);
    const fault = await cluster.cut('probe', leader, { action });
    const label = `probe cut from the leader ${name} (${action})`;
    recorder.mark(label);
    const expected = cutOffFrom([name], false);
    await recorder.until(expected, DEADLINE_MS + ROUND_MS + 3000);
    await recorder.observe(2000);
    const healed = `probe reconnected to the leader (${action})`;
    recorder.mark(healed);
    await fault.heal();
    await recorder.until((s) => s.status === 'healthy', 15_000);
    await recorder.observe(500);
    expectPhases(
      recorder,
      [
        [
          label,
          {
            pattern: /^[a-z]?D+$/,
            always: {
              'never unhealthy': neverUnhealthy,
              'the leader is named, flagged unreachable': (s) => s.t < 0 || (s.leader?.name === name && s.leader.reachable === false),
            },
            reaches: { what: `degraded, ${name} unreachable`, test: expected, withinMs: DEADLINE_MS + ROUND_MS, thenAlways: expected },
          },
        ],
        [healed, { pattern: /^[a-z]?D*H+$/, always: { 'never unhealthy': neverUnhealthy } }],
      ],
      context(),
    );
  });
});
