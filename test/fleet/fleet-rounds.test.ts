import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { buildProbeCore } from '../../src/core/probe-core.ts';
import type { ClusterEntry } from '../../src/fleet/cluster-entry.ts';
import { Fleet } from '../../src/fleet/fleet.ts';
import { RoundLimiter } from '../../src/fleet/round-limiter.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { ProbeTarget } from '../../src/probe/probe-target.ts';
import { LogSink } from '../helpers/log-sink.ts';
import { scriptedSource, ScriptedClient } from '../helpers/scripted-source.ts';
import { round, three } from '../probe/observation-builders.ts';

// How a fleet runs its owned clusters' rounds: each round's member connections closed after it unless the
// fleet holds them (ETCD_PROBE_FLEET_HOLD_CONNECTIONS), and a refresh's rounds spread over the interval.

const base = (() => {
  const r = loadConfig({ env: { ETCD_PROBE_CAPI_CLUSTER: '*', ETCD_PROBE_MANAGEMENT_KUBECONFIG: '/dev/null' }, argv: [], now: new Date() });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join());
  return r.config;
})();

function entry(name: string): ClusterEntry {
  return { name, config: base, tls: { ca: null, cert: null, key: null }, inCluster: null, waiting: null, revision: '1' };
}

/** A fleet whose clusters answer a healthy three-member round, with every member client made and each round's start time. */
function scriptedFleet(holdConnections: boolean, clock: { t: number }) {
  const clients: ScriptedClient[] = [];
  const starts = new Map<string, number[]>();
  const fleet = new Fleet({
    shard: { index: 0, count: 1 },
    limiter: new RoundLimiter(16),
    logger: createLogger('warn', new LogSink()),
    now: () => clock.t,
    minForcedIntervalMs: 1000,
    refreshMs: 60_000,
    idleCloseMs: 300_000,
    holdConnections,
    buildCore: async (e, now) => {
      const source = scriptedSource(round(three()).endpoints);
      const connect = source.connect.bind(source);
      source.connect = (target: ProbeTarget) => {
        const client = connect(target) as ScriptedClient;
        clients.push(client);
        return client;
      };
      const core = await buildProbeCore({ config: e.config, tls: e.tls, now, source: { ...source, close: async () => {} } });
      const roundOf = core.prober.round.bind(core.prober);
      core.prober.round = () => {
        starts.set(e.name, [...(starts.get(e.name) ?? []), performance.now()]);
        return roundOf();
      };
      return core;
    },
  });
  return { fleet, clients, starts };
}

describe("a fleet's rounds", () => {
  it.each([
    [false, [1, 1, 1], [2, 2, 2]],
    [true, [0, 0, 0], [0, 0, 0]],
  ])('with holdConnections %s, release the member connections after each round: %j then %j, with the same clients', async (hold, afterFirst, afterSecond) => {
    const clock = { t: 1_000_000 };
    const { fleet, clients } = scriptedFleet(hold, clock);
    try {
      await fleet.update([entry('ns/a')]);
      await fleet.tick(0);
      expect(clients.map((c) => c.releases)).toEqual(afterFirst);
      clock.t += 60_000;
      await fleet.tick(0);
      // The clients stay (a release is not a close): the second round used the same three.
      expect(clients.map((c) => c.releases)).toEqual(afterSecond);
      expect(clients.map((c) => c.closed)).toEqual([false, false, false]);
      expect(fleet.slot('ns/a')?.cache.peek()?.value.verdict.status).toBe('healthy');
    } finally {
      await fleet.close();
    }
    expect(clients.map((c) => c.closed)).toEqual([true, true, true]);
  });

  it("spread a refresh's rounds evenly over the interval, and start them all at once when not spread", async () => {
    const clock = { t: 1_000_000 };
    const { fleet, starts } = scriptedFleet(false, clock);
    const names = ['ns/a', 'ns/b', 'ns/c', 'ns/d'];
    try {
      await fleet.update(names.map(entry));
      const together = performance.now();
      await fleet.tick(0);
      const firstStarts = names.map((n) => (starts.get(n)?.[0] ?? Number.NaN) - together);
      clock.t += 60_000;
      const spread = performance.now();
      await fleet.tick(800);
      const secondStarts = names.map((n) => (starts.get(n)?.[1] ?? Number.NaN) - spread);
      // 800 ms over four clusters: a round every 200 ms (timers fire late, never early).
      const gaps = secondStarts.slice(1).map((s, i) => s - (secondStarts[i] as number));
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(195);
      expect(Math.max(...firstStarts) - Math.min(...firstStarts)).toBeLessThan(Math.min(...gaps) / 2);
    } finally {
      await fleet.close();
    }
  });

  it('stop starting the rounds of a spread refresh when the fleet closes', async () => {
    const clock = { t: 1_000_000 };
    const { fleet, starts } = scriptedFleet(false, clock);
    await fleet.update(['ns/a', 'ns/b', 'ns/c'].map(entry));
    const ticking = fleet.tick(600_000);
    await expect.poll(() => starts.size, { timeout: 5000, interval: 10 }).toBe(1);
    await fleet.close();
    // The refresh ends with the fleet (not ten minutes later), having started nothing more.
    await ticking;
    expect([...starts.keys()]).toEqual(['ns/a']);
  });
});

// Issue 25, hole 4: a cluster whose rounds keep reaching nothing was refreshed like every other.
describe("a fleet's refresh of a cluster that reaches nothing", () => {
  it('backs off (refresh × 2^(n-1), here 60 s, 120 s, 240 s) and says so in its metrics; a round that reaches it resets the backoff', async () => {
    const clock = { t: 1_000_000 };
    let dead = true;
    const starts: number[] = [];
    const fleet = new Fleet({
      shard: { index: 0, count: 1 },
      limiter: new RoundLimiter(16),
      logger: createLogger('warn', new LogSink()),
      now: () => clock.t,
      minForcedIntervalMs: 1000,
      refreshMs: 60_000,
      idleCloseMs: 300_000,
      holdConnections: true,
      buildCore: async (e, now) => {
        const down = round(three({ a: { state: 'unreachable' }, b: { state: 'unreachable' }, c: { state: 'unreachable' } })).endpoints;
        const up = round(three()).endpoints;
        const core = await buildProbeCore({ config: e.config, tls: e.tls, now, source: { ...scriptedSource(down), close: async () => {} } });
        const healthy = await buildProbeCore({ config: e.config, tls: e.tls, now, source: { ...scriptedSource(up), close: async () => {} } });
        const roundOf = core.prober.round.bind(core.prober);
        const healthyRound = healthy.prober.round.bind(healthy.prober);
        core.prober.round = () => {
          starts.push(clock.t);
          return dead ? roundOf() : healthyRound();
        };
        return core;
      },
    });
    try {
      await fleet.update([entry('ns/dead')]);
      // A refresh every 60 s for 12 minutes.
      for (let i = 0; i < 12; i++) {
        await fleet.tick(0);
        clock.t += 60_000;
      }
      const minutes = starts.map((t) => (t - 1_000_000) / 60_000);
      // Rounds at 0, 1 (2nd failure: put off 120 s), 3 (240 s), 7 (480 s, the cap of 8 refreshes): next at 15.
      expect(minutes).toEqual([0, 1, 3, 7]);
      const slot = fleet.slot('ns/dead');
      expect(slot?.backoff.state(clock.t)).toMatchObject({ failures: 4 });
      expect(await slot?.metrics.registry.getSingleMetricAsString('etcd_probe_round_backoff_seconds')).toMatch(/etcd_probe_round_backoff_seconds \d+/);
      dead = false;
      clock.t += 8 * 60_000;
      await fleet.tick(0);
      await fleet.tick(0);
      expect(slot?.backoff.state(clock.t)).toBeNull();
      expect(slot?.cache.peek()?.value.verdict.status).toBe('healthy');
    } finally {
      await fleet.close();
    }
  });
});
