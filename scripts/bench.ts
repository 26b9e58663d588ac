import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EtcdCluster, etcdVersion } from '../test/fixtures/etcd-cluster.ts';
import { freePorts } from '../test/fixtures/free-port.ts';
import { RawEtcd } from './bench/raw-etcd.ts';
import { environment, metric, table, writeResults, type Metric } from './bench/report.ts';
import { pollingRpcRate, throughputAndMemory } from './bench/cached-sections.ts';
import { coldRound, hungMember, roundsMemory } from './bench/cold-sections.ts';
import type { BenchContext } from './bench/context.ts';
import { startBare, startService, waitForOk, type ServerChild } from './bench/servers.ts';
import { SETTINGS } from './bench/settings.ts';

// Measures etcd-probe against a real 3-member TLS cluster and prints measured ratios (not a timed test).
// The service instances and the bare comparison server run as child processes so that autocannon, in
// this process, never shares an event loop with a server it measures.

const RESULTS = fileURLToPath(new URL('../bench/results.json', import.meta.url));

let cluster: EtcdCluster | null = null;
const servers: ServerChild[] = [];
let raw: RawEtcd | null = null;
let scratch: string | null = null;
let cleaning: Promise<void> | null = null;

/** Stops everything this run started; safe to call twice (finally and a signal may both call it). */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    raw?.close();
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

async function main(): Promise<void> {
  const date = new Date();
  const etcd = etcdVersion();
  step(`starting a 3-member TLS etcd ${etcd} cluster`);
  cluster = await EtcdCluster.start({ size: 3, tls: true });
  const pki = cluster.pki;
  if (!pki) throw new Error('the cluster has no TLS files');
  scratch = mkdtempSync(join(tmpdir(), 'etcd-probe-bench-'));

  const common = {
    ETCD_PROBE_ENDPOINTS: cluster.endpoints,
    ETCD_PROBE_CACERT: pki.caFile,
    ETCD_PROBE_CERT: pki.clientCertFile,
    ETCD_PROBE_KEY: pki.clientKeyFile,
    ETCD_PROBE_TIMEOUT: SETTINGS.timeout,
  };
  const [cachedPort, coldPort] = (await freePorts(2)) as [number, number];
  step(`starting the service twice: cache TTL ${SETTINGS.cachedTtl} (cached) and 0s (cold), timeout ${SETTINGS.timeout}`);
  const cached = await startService('service-cached', cachedPort, { ...common, ETCD_PROBE_CACHE_TTL: SETTINGS.cachedTtl });
  servers.push(cached);
  const cold = await startService('service-cold', coldPort, { ...common, ETCD_PROBE_CACHE_TTL: '0s' });
  servers.push(cold);
  const body = await waitForOk(cached, '/healthz/etcd');
  await waitForOk(cold, '/healthz/etcd');
  const startRss = [
    metric('rss.cached.start', 'RSS cached instance, after its first round', cached.child.rssMb(), 'MB'),
    metric('rss.cold.start', 'RSS TTL=0 instance, after its first round', cold.child.rssMb(), 'MB'),
  ];

  const bodyFile = join(scratch, 'healthz.json');
  writeFileSync(bodyFile, body);
  step(`starting the bare Fastify server with the same ${body.length}-byte /healthz/etcd body`);
  const bare = await startBare(bodyFile);
  servers.push(bare);

  raw = new RawEtcd(cluster.endpoints.split(','), pki);
  const context: BenchContext = { cluster, cached, cold, bare, raw, step };
  const metrics: Metric[] = [
    ...startRss,
    ...(await throughputAndMemory(context)),
    ...(await pollingRpcRate(context)),
    ...(await coldRound(context)),
    ...(await roundsMemory(context)),
    ...(await hungMember(context)),
  ];
  raw.close();

  writeResults(RESULTS, environment(etcd, date), { ...SETTINGS }, metrics);
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
