import { afterAll, beforeAll, describe, it } from 'vitest';
import { etcdVersion } from '#lab/etcd/binary.ts';
import type { Fault } from '#lab/netns/link-faults.ts';
import { backToHealthy, nameOf, startScenario, stopScenario, type Scenario } from '../helpers/scenario.ts';
import { confinedTo, expectPhases, neverUnhealthy } from '../helpers/verdict-sequence.ts';

// Links that still carry some traffic: packet loss and a slow (rate-limited) link, each on one follower
// of a real 3-member cluster. These are single-member faults: the verdict may be degraded about that
// member, healthy at times, but never unhealthy and never about another member. (netem's fixed delay is
// not built into this kernel; a rate limit gives queueing delay instead.)

let sc: Scenario;
const context = () => `etcd ${etcdVersion()}, degraded links: `;

beforeAll(async () => {
  sc = await startScenario();
});

afterAll(async () => {
  await stopScenario(sc);
});

async function followerFault(label: string, inject: (index: number) => Promise<Fault>, observeMs: number): Promise<void> {
  const { cluster, recorder } = sc;
  await backToHealthy(sc, `healthy before ${label}`);
  const [follower] = (await cluster.followerIndexes()) as [number];
  const name = nameOf(sc, follower);
  const fault = await inject(follower);
  const phase = `${label} on ${name}`;
  recorder.mark(phase);
  await recorder.observe(observeMs);
  const healed = `${label} on ${name} healed`;
  recorder.mark(healed);
  await fault.heal();
  await recorder.until((s) => s.status === 'healthy', 15_000);
  await recorder.observe(500);
  expectPhases(
    recorder,
    [
      [
        phase,
        {
          pattern: /^[a-z]?[HDE]+$/,
          always: { 'never unhealthy': neverUnhealthy, [`only ${name} at fault`]: (s) => s.status === 'healthy' || confinedTo(s, name) || s.codes.includes('NO_LEADER') },
        },
      ],
      [healed, { pattern: /^[a-z]?[HDE]*H+$/, always: { 'never unhealthy': neverUnhealthy } }],
    ],
    context(),
  );
}

describe('one follower on a bad link', () => {
  it('30% packet loss each way: never unhealthy, only that member reported', async () => {
    await followerFault('30% packet loss', (i) => sc.cluster.loss(i, 30), 6000);
  });

  it('a 16 kbit/s link: never unhealthy, only that member reported', async () => {
    await followerFault('16 kbit/s link', (i) => sc.cluster.throttle(i, 16), 6000);
  });
});
