import { availableParallelism } from 'node:os';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { clusterRows, firstAnswer, firstAnswerOfNew, startRun, type FleetRun, type Row as FleetRow } from './fleet-run.ts';
import { closeTimedConnections } from './load.ts';
import { startFlags } from '#lab/service/start-flags.ts';
import { median, percentile } from './stats.ts';

// Fleet mode at scale (issue 15, item 5): per replica, the service's CPU and RSS with 50, 200 and 500
// workload clusters, memory per added cluster, the time to a warm fleet, GET /clusters latency, and the
// time to the first answer for a cluster never asked before. The workload clusters are SIMULATED by the
// kube-apiserver stand-in (lab/kube-apiserver/fake-fleet.ts: each its own API server,
// kubeconfig Secret and etcd CA) in this process; their port-forwards lead to two REAL 3-member TLS etcd
// clusters, round-robin. The service runs in a child process as `npm start` runs it (dist/main.js and its
// Node flags), so /proc/<pid> readings are its own. A fresh stand-in and service per size. Not a timed
// test: a script that prints what it measured.
//   npm run build && node --experimental-strip-types scripts/bench/fleet.ts [--refresh=30s] [--intervals=2] [--old-space=MiB] [--semi-space=MiB] [--cold-size=50] [--hold-connections=true|false] [sizes...]

const TIMEOUT_MS = 2000; // ETCD_PROBE_TIMEOUT's default, which the service runs with here
// Sequential GET /clusters after the window: 200, so that the p99 is not simply the slowest one.
const LATENCY_SAMPLES = 200;

interface Row {
  readonly clusters: number;
  readonly warmMs: number;
  readonly statuses: string;
  /** The verdicts at the end of the CPU window: rounds made while the machine was loaded. */
  readonly statusesAfter: string;
  /** What the bench process itself (the stand-in fleet and its relays) used of the machine in the window. */
  readonly standInCores: number;
  readonly windowS: number;
  readonly cores: number;
  readonly cores30: number;
  readonly rssMeanMiB: number;
  readonly rssMaxMiB: number;
  /** The service's V8 heap at the end of the window (its nodejs_heap_size_* metrics), MiB. */
  readonly heapUsedMiB: number;
  readonly heapTotalMiB: number;
  readonly listP50: number;
  readonly listP99: number;
  readonly firstMs: number;
  readonly firstStatus: number;
  readonly firstState: string;
}

function flag(name: string, fallback: string): string {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3) : fallback;
}

function seconds(duration: string): number {
  const match = /^(\d+)(s|m)$/.exec(duration);
  if (!match) throw new Error(`--refresh: expected e.g. 10s or 1m, got ${duration}`);
  return Number(match[1]) * (match[2] === 'm' ? 60 : 1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU and RSS of the service over `intervals` refresh intervals, RSS sampled every second. */
async function window(run: FleetRun, refreshS: number, intervals: number) {
  const { child } = run.service;
  const rss: number[] = [];
  const cpu0 = child.cpuSeconds();
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + refreshS * intervals * 1000;
  while (performance.now() < end) {
    if (!child.running) throw new Error(`the service exited during the window; its output:\n${child.output}`);
    rss.push(child.rssMb());
    await sleep(Math.min(1000, Math.max(0, end - performance.now())));
  }
  const wallS = (performance.now() - t0) / 1000;
  const cores = (child.cpuSeconds() - cpu0) / wallS;
  const own = process.cpuUsage(own0);
  return { wallS, cores, standInCores: (own.user + own.system) / 1e6 / wallS, rssMean: rss.reduce((a, b) => a + b, 0) / rss.length, rssMax: Math.max(...rss) };
}

/** The service's V8 heap, used and total (MiB), from its own /metrics. */
async function heapMiB(run: FleetRun): Promise<{ used: number; total: number }> {
  const text = await (await fetch(`${run.service.url}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
  return { used: read('nodejs_heap_size_used_bytes'), total: read('nodejs_heap_size_total_bytes') };
}

async function measure(backends: readonly EtcdCluster[], clusters: number, refresh: string, intervals: number): Promise<Row> {
  const refreshS = seconds(refresh);
  const run = await startRun({ backends, clusters, refresh, warmWithinMs: 600_000, nodeFlags, ...hold });
  try {
    const w = await window(run, refreshS, intervals);
    const after = (await clusterRows(run.service)).rows;
    const heap = await heapMiB(run);
    const list: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) list.push((await clusterRows(run.service)).ms);
    const first = await firstAnswerOfNew(run, `cluster-new-${clusters}`, refreshS * 3000);
    return {
      clusters,
      warmMs: run.warmMs,
      statuses: tally(run.rows),
      statusesAfter: tally(after),
      standInCores: w.standInCores,
      windowS: w.wallS,
      cores: w.cores,
      // Every owned cluster gets a round per refresh: CPU per round × the rounds a 30 s refresh makes.
      cores30: (w.cores * refreshS) / 30,
      rssMeanMiB: w.rssMean,
      rssMaxMiB: w.rssMax,
      heapUsedMiB: heap.used,
      heapTotalMiB: heap.total,
      listP50: median(list),
      listP99: percentile(list, 99),
      firstMs: first.ms,
      firstStatus: first.status,
      firstState: first.stateWhenListed,
    };
  } finally {
    await run.stop();
  }
}

/** How many rows have each status, e.g. `498 healthy, 2 degraded`. */
function tally(rows: readonly FleetRow[]): string {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.status ?? 'unknown', (counts.get(r.status ?? 'unknown') ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
}

/** With ETCD_PROBE_SHARD=0/2, the first answer for clusters this replica does not own (no warm loop, no prober yet). */
async function unowned(backends: readonly EtcdCluster[], clusters: number, refresh: string) {
  const run = await startRun({ backends, clusters, refresh, shard: '0/2', warmWithinMs: 600_000, nodeFlags, ...hold });
  try {
    // A Cluster API fleet shards by the Cluster's uid (issue 25), which only the replica knows: its rows say.
    const names = run.rows.filter((r) => !r.owned).slice(0, 5);
    if (names.length === 0 || names.some((r) => r.state !== 'unchecked')) throw new Error('no cluster of shard 1, or one already checked by shard 0');
    const answers: { ms: number; status: number }[] = [];
    for (const r of names) answers.push(await firstAnswer(run, r.name));
    return answers;
  } finally {
    await run.stop();
  }
}

const f = (n: number, digits = 0) => n.toFixed(digits);

function print(rows: readonly Row[], cold: readonly { ms: number; status: number }[], refresh: string, intervals: number, coldSize: number): void {
  const refreshS = seconds(refresh);
  const lines = [
    'etcd-probe fleet mode at scale, ONE replica. Workload clusters are SIMULATED by the kube-apiserver STAND-IN',
    '(lab/kube-apiserver/fake-fleet.ts, in the bench process; its TLS relays keep their session ticket keys, as etcd does),',
    'backed by 2 REAL 3-member TLS etcd clusters',
    `(etcd ${process.env.ETCD_BIN ?? 'from PATH'}), round-robin. Service: dist/main.js with Node flags ${nodeFlags.join(' ')}${oldSpace ? ' (--old-space replaced npm start\'s heap limit)' : ' (npm start\'s)'}, ETCD_PROBE_FLEET_REFRESH=${refresh}, ETCD_PROBE_FLEET_HOLD_CONNECTIONS=${holdFlag || 'default (false)'}, timeout 2s.`,
    `command: npm run build && node --experimental-strip-types scripts/bench/fleet.ts ${process.argv.slice(2).join(' ')}`.trimEnd(),
    `CPU window: ${intervals} refresh intervals per size.${refreshS === 30 ? '' : ` Measured at a ${refresh} refresh; "cores@30s" scales it to a 30 s refresh (CPU per round × rounds per 30 s).`}`,
    '',
    `clusters  warm s  verdicts when warm / after the window            cores@${refresh}  ${refreshS === 30 ? '   (same)' : 'cores@30s'}  RSS MiB mean/max  heap used/total  /clusters p50/p99 ms  first answer ms (HTTP, state when listed)`,
  ];
  for (const r of rows) {
    lines.push(
      [
        String(r.clusters).padStart(8),
        f(r.warmMs / 1000, 1).padStart(6),
        `${r.statuses} / ${r.statusesAfter}`.padEnd(50),
        f(r.cores, 3).padStart(6 + refresh.length),
        f(r.cores30, 3).padStart(9),
        `${f(r.rssMeanMiB)}/${f(r.rssMaxMiB)}`.padStart(17),
        `${f(r.heapUsedMiB)}/${f(r.heapTotalMiB)}`.padStart(15),
        `${f(r.listP50, 1)}/${f(r.listP99, 1)}`.padStart(20),
        `${f(r.firstMs)} (${r.firstStatus}, ${r.firstState})`.padStart(12),
      ].join('  '),
    );
  }
  lines.push('', `the bench process (stand-in API servers, relays) used, in the same windows: ${rows.map((r) => `${f(r.standInCores, 2)} cores at ${r.clusters}`).join(', ')} (the machine has ${availableParallelism()})`);
  const by = new Map(rows.map((r) => [r.clusters, r]));
  const perCluster = (a: number, b: number) => {
    const ra = by.get(a);
    const rb = by.get(b);
    return ra && rb ? `${f(((rb.rssMeanMiB - ra.rssMeanMiB) * 1024) / (b - a))} KiB/cluster (${a}→${b}, mean RSS)` : null;
  };
  lines.push('', `memory per added cluster: ${[perCluster(50, 500), perCluster(200, 500), perCluster(50, 200)].filter(Boolean).join('; ') || 'n/a'}`);
  if (cold.length > 0) {
    const ms = cold.map((c) => c.ms);
    lines.push(
      `first answer, cluster owned by no warm loop (ETCD_PROBE_SHARD=0/2, ${coldSize} clusters, ${cold.length} of shard 1 asked in turn): ` +
        `median ${f(median(ms))} ms, max ${f(Math.max(...ms))} ms, HTTP ${[...new Set(cold.map((c) => c.status))].join('/')}; target ≤ timeout + 1 s = ${TIMEOUT_MS + 1000} ms`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

const refresh = flag('refresh', '30s');
// --old-space=<MiB> replaces npm start's --max-old-space-size (to see what a fleet needs when 128 is too little).
const oldSpace = flag('old-space', '');
// --semi-space=<MiB> replaces npm start's --max-semi-space-size (the young generation: how often V8 scavenges).
const semiSpace = flag('semi-space', '');
const nodeFlags = startFlags().map((f) =>
  oldSpace && f.startsWith('--max-old-space-size=') ? `--max-old-space-size=${oldSpace}` : semiSpace && f.startsWith('--max-semi-space-size=') ? `--max-semi-space-size=${semiSpace}` : f,
);
const intervals = Number(flag('intervals', '2'));
// --hold-connections=true|false sets ETCD_PROBE_FLEET_HOLD_CONNECTIONS (absent: the service's default, false).
const holdFlag = flag('hold-connections', '');
if (!['', 'true', 'false'].includes(holdFlag)) throw new Error(`--hold-connections: expected true or false, got ${holdFlag}`);
const hold = holdFlag === '' ? {} : { holdConnections: holdFlag === 'true' };
const coldSize = Number(flag('cold-size', '50'));
const sizes = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number);
const backends = await Promise.all([EtcdCluster.start({ size: 3, tls: true }), EtcdCluster.start({ size: 3, tls: true })]);
try {
  const rows: Row[] = [];
  const failures: string[] = [];
  for (const size of sizes.length > 0 ? sizes : [50, 200, 500]) {
    try {
      rows.push(await measure(backends, size, refresh, intervals));
      process.stderr.write(`measured ${size}: ${JSON.stringify(rows.at(-1))}\n`);
    } catch (error) {
      // A size that fails (the service crashing, say) is reported, and the next size still runs.
      failures.push(`${size} clusters FAILED: ${String(error).split('\n').slice(0, 1).join('')}; last output: ${String(error).split('\n').filter((l) => /FATAL|heap/.test(l)).slice(0, 2).join(' | ')}`);
      process.stderr.write(`${failures.at(-1)}\n`);
    }
  }
  const cold = coldSize > 0 ? await unowned(backends, coldSize, refresh) : [];
  print(rows, cold, refresh, intervals, coldSize);
  process.stdout.write(`service Node flags: ${nodeFlags.join(' ')}\n${failures.join('\n')}\n`);
} finally {
  closeTimedConnections();
  await Promise.all(backends.map((b) => b.stop()));
}
