import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etcdVersion } from '#lab/etcd/binary.ts';
import { freePorts } from '#lab/ports/free-port.ts';
import { Haproxy } from '#lab/haproxy/haproxy.ts';
import { NetnsCluster } from '#lab/netns/netns-cluster.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// A real load balancer uses the per-member route: Debian's HAProxy (2.6) in TCP mode in front of a real
// 3-member TLS cluster (each member in its own network namespace), one `server` line per member named as
// the member, each checked at etcd-probe's GET /healthz/etcd/members/<name> — docs/examples/haproxy.cfg
// as shipped, with this test's addresses. What HAProxy thinks of each server is sampled every 100 ms on
// its admin socket, and an etcd client (etcdctl, through HAProxy's frontend) writes and reads all along.
// Each event: the member concerned goes DOWN within DOWN_BOUND_MS, no other server is taken out at any
// sample, every etcdctl call that starts after the member is DOWN succeeds, and after recovery every
// server is UP again within UP_BOUND_MS.

/** etcd-probe as the docs advise behind a load balancer: rounds every second; the default 2 s deadline. */
const TTL_MS = 1000;
const DEADLINE_MS = 2000;
/** HAProxy: `inter 1s fall 2 rise 2` and `timeout check 1s` (docs/examples/haproxy.cfg). */
const INTER_MS = 1000;
/**
 * From the fault to DOWN: the round that sees it starts within a TTL and takes at most the deadline; two
 * checks must fail (fall 2: up to 2 intervals after that round, and the first may be in flight); 1 s slack.
 */
const DOWN_BOUND_MS = TTL_MS + DEADLINE_MS + 3 * INTER_MS + 1000;
/** From the recovery to UP: the member rejoins (a restart replays its WAL), a round sees it, two checks pass. */
const UP_BOUND_MS = 20_000;
const BACKEND = 'etcd_members';

let cluster: NetnsCluster;
let service: RunningService;
let lb: Haproxy;
let frontend: string;
const figures: string[] = [];

interface Sample {
  readonly at: number;
  readonly servers: Record<string, string>;
}

/** HAProxy's view of the servers, sampled every 100 ms while `during` runs. */
async function sampled<T>(during: (samples: Sample[]) => Promise<T>): Promise<{ result: T; samples: Sample[] }> {
  const samples: Sample[] = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      samples.push({ at: Date.now(), servers: await lb.servers(BACKEND) });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    return { result: await during(samples), samples };
  } finally {
    stop = true;
    await loop;
  }
}

const isDown = (status: string | undefined) => status === undefined || status.startsWith('DOWN');
const allUp = (s: Sample) => Object.keys(s.servers).length === 3 && Object.values(s.servers).every((v) => v === 'UP');

/** The time of the first sample (taken after `from`) for which `check` holds; throws after `timeoutMs`. */
async function when(samples: Sample[], from: number, check: (s: Sample) => boolean, timeoutMs: number, what: string): Promise<number> {
  const deadline = from + timeoutMs;
  for (let seen = 0; ; ) {
    for (; seen < samples.length; seen++) {
      const s = samples[seen] as Sample;
      if (s.at >= from && check(s)) return s.at;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; last: ${JSON.stringify(samples.at(-1)?.servers)}\n${lb.output.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Call {
  readonly start: number;
  readonly end: number;
  readonly ok: boolean;
}

function etcdctl(args: string[]): Promise<boolean> {
  const pki = cluster.pki!;
  const child = spawn('etcdctl', [`--endpoints=https://${frontend}`, `--cacert=${pki.caFile}`, `--cert=${pki.clientCertFile}`, `--key=${pki.clientKeyFile}`, '--dial-timeout=1s', '--command-timeout=2s', ...args], {
    env: { ...process.env, ETCDCTL_API: '3' },
    stdio: 'ignore',
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code === 0)));
}

/** An etcd client through HAProxy: a write then a linearizable read, one after the other, while `during` runs. */
async function client<T>(during: () => Promise<T>): Promise<{ result: T; calls: Call[] }> {
  const calls: Call[] = [];
  let stop = false;
  const loop = (async () => {
    for (let i = 0; !stop; i++) {
      const start = Date.now();
      const ok = i % 2 === 0 ? await etcdctl(['put', 'haproxy-test', String(i)]) : await etcdctl(['get', 'haproxy-test']);
      calls.push({ start, end: Date.now(), ok });
    }
  })();
  try {
    return { result: await during(), calls };
  } finally {
    stop = true;
    await loop;
  }
}

const nameOf = (index: number) => cluster.members[index]!.name;

/**
 * One event on member `index`: `fault` puts it in, `recover` ends it. Asserts the sequence (all UP → only
 * that member DOWN → all UP, no other server ever taken out), the bounds, and the client; records figures.
 */
async function event(label: string, index: number, fault: () => Promise<void>, recover: () => Promise<void>): Promise<void> {
  const name = nameOf(index);
  const others = cluster.members.map((m) => m.name).filter((n) => n !== name);
  const { result, calls } = await client(() =>
    sampled(async (samples) => {
      const ready = await when(samples, Date.now(), allUp, UP_BOUND_MS, `${label}: every server UP before`);
      const faultAt = Date.now();
      await fault();
      const downAt = await when(samples, faultAt, (s) => isDown(s.servers[name]), DOWN_BOUND_MS, `${label}: ${name} DOWN`);
      // Let the client run a while against the servers left.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const clientUntil = Date.now();
      const recoverAt = Date.now();
      await recover();
      const upAt = await when(samples, recoverAt, allUp, UP_BOUND_MS, `${label}: every server UP after`);
      return { ready, faultAt, downAt, clientUntil, recoverAt, upAt };
    }),
  );
  const { samples, result: t } = result;
  // Another server is never taken out. A single failed check (`UP 1/2`, still in service with fall 2) is
  // counted and printed: on 3.4 the cut-off member's return forces an election, in which a round can find
  // the old leader's read failing while the new leader's passes.
  const window = samples.filter((s) => s.at >= t.ready && s.at <= t.upAt);
  const othersOut = window.filter((s) => others.some((o) => s.servers[o] !== 'UP' && s.servers[o] !== 'UP 1/2'));
  expect(othersOut.map((s) => s.servers), `${label}: a server other than ${name} was taken out`).toEqual([]);
  const othersWobbled = window.filter((s) => others.some((o) => s.servers[o] === 'UP 1/2')).length;
  const afterDown = calls.filter((c) => c.start >= t.downAt && c.end <= t.clientUntil);
  expect(afterDown.length, `${label}: etcdctl calls while ${name} was out`).toBeGreaterThan(0);
  expect(afterDown.filter((c) => !c.ok).length, `${label}: etcdctl calls that failed after ${name} was out`).toBe(0);
  const beforeDown = calls.filter((c) => c.start >= t.faultAt && c.start < t.downAt);
  const afterUp = calls.filter((c) => c.start >= t.upAt);
  expect(afterUp.every((c) => c.ok), `${label}: etcdctl after recovery`).toBe(true);
  figures.push(
    `${label} (${name}): DOWN ${((t.downAt - t.faultAt) / 1000).toFixed(1)} s after the fault (bound ${DOWN_BOUND_MS / 1000} s), ` +
      `UP ${((t.upAt - t.recoverAt) / 1000).toFixed(1)} s after the recovery; etcdctl ${afterDown.length}/${afterDown.length} ok while out, ` +
      `${beforeDown.filter((c) => !c.ok).length} of ${beforeDown.length} failed before HAProxy took it out; ` +
      `another server with one failed check in ${othersWobbled} of ${window.length} samples`,
  );
}

beforeAll(async () => {
  // 127.0.0.1 on every member's certificate: etcdctl connects to HAProxy there and verifies the member behind it.
  cluster = await NetnsCluster.start({ size: 3, sharedIps: ['127.0.0.1'] });
  service = await startService({
    ...clusterEnv(cluster),
    ETCD_PROBE_CACHE_TTL: `${TTL_MS}ms`,
    ETCD_PROBE_TIMEOUT: `${DEADLINE_MS}ms`,
    ETCD_PROBE_LOG_LEVEL: 'warn',
  });
  const [port] = await freePorts(1);
  frontend = `127.0.0.1:${port}`;
  lb = await Haproxy.start({
    frontend,
    probe: new URL(service.url).host,
    servers: cluster.members.map((m) => ({ name: m.name, address: new URL(m.clientUrl).host })),
  });
}, 120_000);

afterAll(async () => {
  if (figures.length > 0) console.log(`HAProxy over etcd ${etcdVersion()}, TTL ${TTL_MS} ms, deadline ${DEADLINE_MS} ms, inter ${INTER_MS} ms fall 2 rise 2:\n  ${figures.join('\n  ')}`);
  await lb?.stop();
  await service?.close();
  await cluster?.stop();
});

describe(`HAProxy in front of a 3-member cluster, checking each member through etcd-probe (etcd ${etcdVersion()})`, () => {
  it('a killed follower goes DOWN alone, and UP again once restarted', async () => {
    const [follower] = (await cluster.followerIndexes()) as [number];
    await event('killed', follower, () => cluster.kill(follower), () => cluster.restart(follower));
  }, 90_000);

  it('a hung follower (SIGSTOP) goes DOWN alone while every check is still answered in time, and UP after SIGCONT', async () => {
    const [follower] = (await cluster.followerIndexes()) as [number];
    await event('hung', follower, async () => cluster.pause(follower), async () => cluster.resume(follower));
  }, 90_000);

  it('a follower cut off from its peers (HAProxy and etcd-probe still reach it) goes DOWN alone, and UP once healed', async () => {
    const [follower] = (await cluster.followerIndexes()) as [number];
    let fault: { heal(): Promise<void> } | undefined;
    await event(
      'cut off from peers',
      follower,
      async () => {
        fault = await cluster.isolateFromPeers(follower);
      },
      async () => fault?.heal(),
    );
  }, 90_000);

  it('a killed leader: only the dead member goes DOWN, the election takes no other server out', async () => {
    const leader = await cluster.leaderIndex();
    await event('leader killed', leader, () => cluster.kill(leader), () => cluster.restart(leader));
  }, 90_000);
});
