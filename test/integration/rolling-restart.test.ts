import { afterAll, beforeAll, describe, it } from 'vitest';
import { etcdVersion } from '#lab/etcd/binary.ts';
import { backToHealthy, nameOf, startScenario, stopScenario, type Scenario } from '../helpers/scenario.ts';
import type { VerdictSample } from '../helpers/verdict-recorder.ts';
import { expectPhases, neverUnhealthy, unreachable } from '../helpers/verdict-sequence.ts';

// A control-plane rollout restarts the etcd members one at a time: kill, start again, wait until the
// member is healthy (as kubeadm waits for the static pod), then the next, the leader among them. At no
// point does the cluster lose quorum, so the verdict must never be unhealthy or QUORUM_LOST.

let sc: Scenario;
let order: number[] = [];
const context = () => `etcd ${etcdVersion()}, rolling restart: `;

beforeAll(async () => {
  sc = await startScenario();
});

afterAll(async () => {
  await stopScenario(sc);
});

describe('rolling restart', () => {
  it('of every member, one at a time, followers first: degraded at times, never unhealthy', async () => {
    const { cluster, recorder } = sc;
    await backToHealthy(sc, 'healthy before the rollout');
    // Followers first and the leader last, as most rollouts end up doing; the leader's restart forces an election.
    order = [...(await cluster.followerIndexes()), await cluster.leaderIndex()];
    const phases: string[] = [];
    for (const index of order) {
      const label = `restart ${nameOf(sc, index)}${index === order.at(-1) ? ' (the leader)' : ''}`;
      recorder.mark(label);
      phases.push(label);
      await cluster.kill(index);
      // Down long enough for the probe to see it (a real rollout's pod is gone for seconds).
      await recorder.until((s) => unreachable(s).includes(nameOf(sc, index)), 10_000);
      await cluster.restart(index);
      await cluster.waitHealthy();
    }
    recorder.mark('rollout done');
    const healthy = await recorder.until((s) => s.status === 'healthy', 15_000);
    await recorder.observe(500);
    expectPhases(
      recorder,
      [
        // Each member's absence is seen (D, or E while the leader's successor is elected; maybe only by the
        // round that straddles the kill, when the restart is quick), then healthy again.
        ...phases.map(
          (label, i) =>
            [
              label,
              {
                pattern: /^[a-z]?H*[ED]*H*$/,
                always: { 'never unhealthy': neverUnhealthy },
                reaches: {
                  what: `${nameOf(sc, order[i] as number)} seen unreachable`,
                  test: (s: VerdictSample) => unreachable(s).includes(nameOf(sc, order[i] as number)),
                  withinMs: 10_000,
                },
              },
            ] as const,
        ),
        ['rollout done', { pattern: /^[a-z]?[ED]*H+$/, always: { 'never unhealthy': neverUnhealthy, 'healthy at the end': () => healthy !== null } }],
      ],
      context(),
    );
  });
});
