import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EtcdCluster, etcdVersion } from '#lab/etcd/cluster.ts';
import { freePorts } from '#lab/ports/free-port.ts';
import { pollingRpcRate, throughputAndMemory } from './cached-sections.ts';
import { coldRatios, hungMember, roundsMemory } from './cold-sections.ts';
import { HEALTHZ, serviceEnv, type BenchContext } from './context.ts';
import { hungPoll } from './hung-poll.ts';
import { closeTimedConnections } from './load.ts';
import { hashKvCost } from './hashkv-cost.ts';
import { RawEtcd } from './raw-etcd.ts';
import { environment, metric, table, writeResults, type Metric } from './report.ts';
import { startBare, startService, waitForOk, type ServerChild } from './servers.ts';
import { SETTINGS } from './settings.ts';
import { startFlags } from '#lab/service/start-flags.ts';

// Measures etcd-probe against real TLS clusters and prints ratios measured in the same run (not a timed
// test). The service instances and the bare comparison server run as child processes so that
// autocannon, in this process, never shares an event loop with a server it measures.
// `npm run bench -- --only=cached,cold` runs some sections only (cached, poll, cold, rounds, hung, hung-poll).
// `--only=hashkv` (never run by default: it fills clusters to 1 GiB) measures the divergence check's
// HashKV on etcd 3.4 and, when ETCD35_BIN is set, 3.5 (HASHKV_SIZES_MIB=100,1024 by default).

const RESULTS = fileURLToPath(new URL('../../bench/results.json', import.meta.url));
const SECTIONS = ['cached', 'poll', 'cold', 'rounds', 'hung', 'hung-poll'] as const;
/** Sections run only when named in --only. */
const NAMED_ONLY = ['hashkv'] as const;

let cluster: EtcdCluster | null = null;
const servers: ServerChild[] = [];
let raw: RawEtcd | null = null;
let scratch: string | null = null;
let cleaning: Promise<void> | null = null;

/** Stops everything this run started; safe to call twice (finally and a signal may both call it). */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    raw?.close();
    closeTimedConnections();
    await Promise.all(servers.map((s) => s.child.stop()));
    await cluster?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}: stopping the cluster and the servers\n`);
    void cleanup().finally(() => process.exit(130));
  });
}

function step(text: string): void {
  process.stdout.write(`» ${text}\n`);
}

function selectedSections(argv: readonly string[]): Set<string> {
  const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  if (only === undefined) return new Set(SECTIONS);
  const chosen = only.split(',').filter(Boolean);
  const known: readonly string[] = [...SECTIONS, ...NAMED_ONLY];
  const unknown = chosen.filter((c) => !known.includes(c));
  if (unknown.length > 0) throw new Error(`--only: unknown section ${unknown.join(', ')}; sections: ${known.join(', ')}`);
  return new Set(chosen);
}

async function main(): Promise<void> {
  const sections = selectedSections(process.argv.slice(2));
  const date = new Date();
  const etcd = etcdVersion();
  if (sections.has('hashkv')) {
    const metrics = await hashKvCost(undefined, step);
    if (process.env.ETCD35_BIN) metrics.push(...(await hashKvCost(process.env.ETCD35_BIN, step)));
    process.stdout.write(`\n${table(metrics)}\n`);
    for (const m of metrics.filter((x) => x.note)) process.stdout.write(`  ${m.label}: ${m.note}\n`);
    sections.delete('hashkv');
    if (sections.size === 0) return;
  }
  step(`starting a 3-member TLS etcd ${etcd} cluster`);
  cluster = await EtcdCluster.start({ size: 3, tls: true });
  scratch = mkdtempSync(join(tmpdir(), 'etcd-probe-bench-'));

  const common = serviceEnv(cluster);
  const [cachedPort, coldPort] = (await freePorts(2)) as [number, number];
  step(`starting the service twice: cache TTL ${SETTINGS.cachedTtl} (cached) and 0s (cold), timeout ${SETTINGS.timeout}`);
  const cached = await startService('service-cached', cachedPort, { ...common, ETCD_PROBE_CACHE_TTL: SETTINGS.cachedTtl });
  servers.push(cached);
  const cold = await startService('service-cold', coldPort, { ...common, ETCD_PROBE_CACHE_TTL: '0s' });
  servers.push(cold);
  const answer = await waitForOk(cached, HEALTHZ);
  await waitForOk(cold, HEALTHZ);
  const startRss = [
    metric('rss.cached.start', 'RSS cached instance, after its first round', cached.child.rssMb(), 'MB'),
    metric('rss.cold.start', 'RSS TTL=0 instance, after its first round', cold.child.rssMb(), 'MB'),
  ];

  const bodyFile = join(scratch, 'healthz.json');
  const headersFile = join(scratch, 'headers.json');
  writeFileSync(bodyFile, answer.body);
  writeFileSync(headersFile, JSON.stringify(answer.headers));
  const flags = startFlags();
  step(`starting bare Fastify twice with the same ${answer.body.length}-byte /healthz/etcd body and headers (${Object.keys(answer.headers).join(', ')}): on the service's Node flags (${flags.join(' ')}) and on Node's defaults`);
  const bare = await startBare('bare-server', bodyFile, headersFile, flags);
  servers.push(bare);
  const bareDefaults = await startBare('bare-server-defaults', bodyFile, headersFile, []);
  servers.push(bareDefaults);

  raw = new RawEtcd(cluster.endpoints.split(','), cluster.pki!);
  const context: BenchContext = { cluster, cached, cold, bare, bareDefaults, raw, step, readings: {} };
  const metrics: Metric[] = [...startRss];
  if (sections.has('cached')) metrics.push(...(await throughputAndMemory(context)));
  if (sections.has('poll')) metrics.push(...(await pollingRpcRate(context)));
  if (sections.has('cold')) metrics.push(...(await coldRatios(context)));
  if (sections.has('rounds')) metrics.push(...(await roundsMemory(context)));
  if (sections.has('hung')) metrics.push(...(await hungMember(context)));
  if (sections.has('hung-poll')) metrics.push(...(await hungPoll(context)));
  raw.close();

  writeResults(RESULTS, environment(etcd, date), { ...SETTINGS, sections: [...sections] }, metrics);
  const failed = metrics.filter((m) => m.pass === false);
  process.stdout.write(`\n${table(metrics)}\n\n`);
  process.stdout.write(
    'RPC target: each round asks every member for Status, a linearizable Range and MemberList (3 per member), and ' +
      'the alarm list of one member only (+1 per round), so (3 members × 3 + 1) / TTL.\n',
  );
  for (const m of metrics.filter((x) => x.note)) process.stdout.write(`  ${m.label}: ${m.note}\n`);
  process.stdout.write(`\n${failed.length === 0 ? 'all targets met' : `targets missed: ${failed.map((m) => m.id).join(', ')}`}\n`);
  process.stdout.write(`results: ${RESULTS}\n`);
}

try {
  await main();
} finally {
  step('stopping the servers and the cluster');
  await cleanup();
}
