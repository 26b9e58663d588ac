import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { historyLimitsOf, thresholdsOf } from '../../src/core/probe-core.ts';
import { StaticSource } from '../../src/discovery/static-source.ts';
import { Prober } from '../../src/probe/prober.ts';
import { fixedTls } from '../../src/tls/tls-provider.ts';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { connectionsTo } from '../helpers/proc-sockets.ts';
import { steady } from '../helpers/steady.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// Thousands of rounds must not leak sockets, timers or memory, with every member up and with one down
// (each failed call makes etcd3 drop and rebuild that member's channel).

let cluster: EtcdCluster;

function openSockets(): number {
  return connectionsTo(new Set(cluster.members.map((m) => Number(new URL(m.clientUrl).port))));
}

function resources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

function heapMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function newProber(): Prober {
  const result = loadConfig({ env: { ...clusterEnv(cluster), ETCD_PROBE_TIMEOUT: '1s' }, argv: [], now: new Date() });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  const { config, tls } = result;
  const source = new StaticSource({ endpoints: config.endpoints, discover: true, tls: fixedTls(tls), timeoutMs: config.timeoutMs });
  return new Prober({ source, thresholds: thresholdsOf(config), history: historyLimitsOf(config), now: Date.now });
}

async function rounds(prober: Prober, n: number): Promise<string> {
  let status = '';
  for (let i = 0; i < n; i++) status = (await prober.round()).verdict.status;
  return status;
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
});

afterAll(async () => {
  await cluster?.stop();
});

describe('resource ownership over many rounds', () => {
  it('2000 healthy rounds, then 500 with a member down, leave sockets, timers and heap flat; close frees all', async () => {
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('function');
    // Sockets of an earlier file's clients may still be closing.
    await expect.poll(openSockets, { timeout: 5000 }).toBe(0);
    const beforeProber = openSockets();
    const prober = newProber();

    expect(await rounds(prober, 50)).toBe('healthy');
    const base = { sockets: openSockets(), resources: resources(), heap: heapMiB() };
    expect(beforeProber).toBe(0);
    // One HTTP/2 connection per member: etcd3's per-service gRPC clients share one channel (src/etcd).
    expect(base.sockets).toBe(3);
    expect(await rounds(prober, 2000)).toBe('healthy');
    const after = { sockets: openSockets(), resources: resources(), heap: heapMiB() };
    expect(after.sockets).toBe(base.sockets);
    expect(after.resources.Timeout ?? 0).toBeLessThanOrEqual((base.resources.Timeout ?? 0) + 3);
    expect(after.resources.TCPSocketWrap ?? 0).toBe(base.resources.TCPSocketWrap ?? 0);
    expect(after.heap - base.heap).toBeLessThan(10);
    expect(prober.openClients).toBe(3);

    const [victim] = (await cluster.followerIndexes()) as [number];
    await cluster.kill(victim);
    expect(await rounds(prober, 20)).toBe('degraded');
    // etcd3 redials the dead member on a backoff: compare states where its sockets and timers have settled.
    const settled = () => steady(() => ({ sockets: openSockets(), resources: resources() }));
    const down = { ...(await settled()), heap: heapMiB() };
    expect(await rounds(prober, 500)).toBe('degraded');
    const downAfter = { ...(await settled()), heap: heapMiB() };
    expect(downAfter.sockets).toBeLessThanOrEqual(down.sockets);
    expect(downAfter.resources.Timeout ?? 0).toBeLessThanOrEqual((down.resources.Timeout ?? 0) + 3);
    expect(downAfter.heap - down.heap).toBeLessThan(10);

    // Closed while the member is still down. (Restarted within a second of the last failed calls, the
    // member would get one lingering connection per call: gRPC channels that etcd3 dropped and closed
    // while they were connecting still connect when it comes back. Reported, not fixed here.)
    prober.close();
    // etcd3 closes a channel caught mid-connect after up to 1 s (its waitForReady workaround).
    await expect.poll(openSockets, { timeout: 5000 }).toBe(beforeProber);
    expect(prober.openClients).toBe(0);
    await cluster.restart(victim);
  });
});
