import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { capiFleetRules } from '#lab/kube-apiserver/auth.ts';
import { FakeFleet } from '#lab/kube-apiserver/fake-fleet.ts';
import { clusterRows, freePort, pollUntil, type Row } from './fleet-run.ts';
import { startService } from './servers.ts';
import { percentile } from './stats.ts';

// Issue 25, hole 4: one tenant's clusters that never answer must not age another tenant's verdicts. One
// replica follows a kube-apiserver STAND-IN fleet (lab/kube-apiserver/fake-fleet.ts): N
// clusters in namespace `noisy` whose workload API accepts connections and never answers (setOutage
// 'hang'), and a few clusters in `quiet` whose port-forwards reach one REAL 3-member TLS etcd cluster.
// The service runs in a child process as `npm start` runs it. Every 500 ms the bench reads GET
// /clusters and records each quiet cluster's ageSeconds (how old the verdict it serves is); it prints
// their max and p99 against the bound the issue sets (refresh + one timeout), and the service's RSS.
// Not a timed test: a script that prints what it measured.
//   npm run build && node --experimental-strip-types scripts/bench/noisy-neighbour.ts [--noisy=400] [--quiet=4] [--refresh=30s] [--window=90s]

const TIMEOUT_S = 2; // ETCD_PROBE_TIMEOUT's default, which the service runs with here

function flag(name: string, fallback: string): string {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3) : fallback;
}

function seconds(duration: string, what: string): number {
  const match = /^(\d+)(s|m)$/.exec(duration);
  if (!match) throw new Error(`--${what}: expected e.g. 30s or 2m, got ${duration}`);
  return Number(match[1]) * (match[2] === 'm' ? 60 : 1);
}

const noisy = Number(flag('noisy', '400'));
const quiet = Number(flag('quiet', '4'));
const refreshS = seconds(flag('refresh', '30s'), 'refresh');
const windowS = seconds(flag('window', '90s'), 'window');

const backend = await EtcdCluster.start({ size: 3, tls: true });
const fleet = await FakeFleet.start({ backends: [backend], namespaces: ['noisy', 'quiet'] });
const dir = mkdtempSync(join(tmpdir(), 'noisy-neighbour-bench-'));
try {
  for (let i = 0; i < noisy; i++) fleet.addCluster('noisy', `n-${String(i).padStart(3, '0')}`).workload.setOutage('hang');
  for (let i = 0; i < quiet; i++) fleet.addCluster('quiet', `q-${i}`);
  const token = fleet.api.addUser('system:serviceaccount:monitoring:etcd-probe', capiFleetRules('*'));
  const kubeconfig = await fleet.api.writeKubeconfig(dir, { auth: 'token', token });
  const service = await startService(`etcd-probe noisy ${noisy}`, await freePort(), {
    ETCD_PROBE_CAPI_CLUSTER: '*',
    // The stand-in's workload API servers listen on 127.0.0.1: the default deny list without loopback.
    ETCD_PROBE_DENY_CIDRS: '0.0.0.0/8,::/128,169.254.0.0/16,fe80::/10',
    ETCD_PROBE_MANAGEMENT_KUBECONFIG: kubeconfig,
    ETCD_PROBE_FLEET_REFRESH: `${refreshS}s`,
    ETCD_PROBE_FLEET_MAX_CLUSTERS_PER_NAMESPACE: String(Math.max(250, noisy)),
  }, ['--max-semi-space-size=16', '--max-old-space-size=512']);
  try {
    const quietRow = (r: Row) => r.name.startsWith('quiet/');
    await pollUntil('the quiet clusters probed', service, 120_000, async () => {
      const { rows } = await clusterRows(service);
      return rows.filter(quietRow).length === quiet && rows.filter(quietRow).every((r) => r.status === 'healthy') ? rows : null;
    });
    const ages: number[] = [];
    const rss: number[] = [];
    const statuses = new Map<string, number>();
    const until = Date.now() + windowS * 1000;
    while (Date.now() < until) {
      const { rows } = await clusterRows(service);
      for (const row of rows.filter(quietRow) as (Row & { ageSeconds: number | null })[]) {
        ages.push(row.ageSeconds ?? Number.POSITIVE_INFINITY);
        statuses.set(row.status ?? 'none', (statuses.get(row.status ?? 'none') ?? 0) + 1);
      }
      rss.push(service.child.rssMb());
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const { rows } = await clusterRows(service);
    const backedOff = (rows as (Row & { backoff: unknown })[]).filter((r) => r.name.startsWith('noisy/') && r.backoff !== null).length;
    const bound = refreshS + TIMEOUT_S;
    const max = Math.max(...ages);
    console.log(`noisy neighbours: ${noisy} hanging clusters (namespace noisy), ${quiet} healthy (namespace quiet), refresh ${refreshS} s, timeout ${TIMEOUT_S} s, ${windowS} s window`);
    console.log(`  quiet verdict age: max ${max.toFixed(1)} s, p99 ${percentile(ages, 99).toFixed(1)} s, bound (refresh + timeout) ${bound} s: ${max <= bound ? 'within' : 'OVER'}; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    console.log(`  service RSS: mean ${(rss.reduce((a, b) => a + b, 0) / rss.length).toFixed(0)} MB, max ${Math.max(...rss).toFixed(0)} MB; noisy clusters backed off at the end: ${backedOff} of ${noisy}`);
  } finally {
    await service.child.stop(10_000);
  }
} finally {
  await fleet.close();
  await backend.stop();
  rmSync(dir, { recursive: true, force: true });
}
