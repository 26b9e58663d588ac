import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CapiAccess } from '../../src/discovery/capi-access.ts';
import { TunnelledMemberClient } from '../../src/discovery/tunnelled-member-client.ts';
import { KubeConnection, loadKubeConfig } from '../../src/kube/kube-connection.ts';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { FakeFleet, type FleetBackend } from '#lab/kube-apiserver/fake-fleet.ts';

// What the kube-apiserver STAND-IN's simulated Cluster API fleet (lab/kube-apiserver/
// fake-fleet.ts) costs to set up: wall and CPU time, and RSS and heap of the process, with 50, 200 and
// 500 workload clusters (each its own API server, kubeconfig, etcd CA, 3 nodes and etcd pods, a Cluster
// and two Secrets). Each size runs in a fresh child process so that RSS readings do not carry over.
// Set-up never dials the backends, so a 3-member backend that runs no process stands in for one. With
// --reach, two real 3-member TLS etcd clusters back the fleet and every cluster's etcd is then reached
// once, as etcd-probe would (CapiAccess reads its Secrets and mints from its CA, a tunnelled client
// asks one member for its Status through the stand-in's TLS relay), 8 clusters at a time. Not a timed
// test: a script that prints what it measured.
//   node --expose-gc --experimental-strip-types scripts/bench/fleet-standin-setup.ts [--reach] [sizes...]

const MIB = 2 ** 20;
const NAMESPACES = Array.from({ length: 10 }, (_, i) => `fleet-${i}`);
const REACH_CONCURRENCY = 8;

interface Measurement {
  readonly clusters: number;
  readonly setupMs: number;
  readonly setupCpuMs: number;
  readonly baseRssMiB: number;
  readonly rssMiB: number;
  readonly heapMiB: number;
  readonly reachMs: number | null;
  readonly reachCpuMs: number | null;
  readonly reachRssMiB: number | null;
  readonly reached: number | null;
}

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** Reaches every cluster's etcd once through the stand-in, as etcd-probe's Cluster API mode does; returns how many answered. */
async function reachAll(fleet: FakeFleet): Promise<number> {
  const reader = fleet.api.addUser('bench-reader', null);
  const management = new KubeConnection(loadKubeConfig({ kind: 'secret', text: fleet.api.kubeconfig({ auth: 'token', token: reader }), label: 'management' }));
  const queue = [...fleet.clusters];
  let answered = 0;
  const worker = async () => {
    for (let cluster = queue.shift(); cluster; cluster = queue.shift()) {
      const access = new CapiAccess({ management, cluster: { namespace: cluster.namespace, name: cluster.name }, refreshMs: 60_000, now: Date.now });
      const { connection, tls } = await access.resolve(5000);
      const member = cluster.backend.members[0]?.name ?? '';
      const client = new TunnelledMemberClient({ connection, namespace: 'kube-system', pod: `etcd-${member}`, node: member, port: 2379, timeoutMs: 5000, endpoint: member, tls });
      try {
        if ((await client.status()).ok) answered++;
      } finally {
        client.close();
      }
    }
  };
  await Promise.all(Array.from({ length: REACH_CONCURRENCY }, worker));
  return answered;
}

async function measure(clusters: number, reach: boolean): Promise<Measurement> {
  const etcd = reach ? await Promise.all([EtcdCluster.start({ size: 3, tls: true }), EtcdCluster.start({ size: 3, tls: true })]) : [];
  const synthetic: FleetBackend = { members: ['m1', 'm2', 'm3'].map((name, i) => ({ name, clientUrl: `https://127.0.0.1:${2379 + i}` })), pki: null };
  const backends: FleetBackend[] = reach ? etcd : [synthetic];
  try {
    collect();
    const base = process.memoryUsage();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const fleet = await FakeFleet.start({ backends, clusters, namespaces: NAMESPACES });
    const setupMs = performance.now() - started;
    const setupCpuMs = cpuMs(cpu);
    collect();
    const after = process.memoryUsage();
    let reachMs: number | null = null;
    let reachCpuMs: number | null = null;
    let reachRssMiB: number | null = null;
    let reached: number | null = null;
    if (reach) {
      const reachCpu = process.cpuUsage();
      const reachStart = performance.now();
      reached = await reachAll(fleet);
      reachMs = performance.now() - reachStart;
      reachCpuMs = cpuMs(reachCpu);
      collect();
      reachRssMiB = process.memoryUsage().rss / MIB;
    }
    await fleet.close();
    return { clusters, setupMs, setupCpuMs, baseRssMiB: base.rss / MIB, rssMiB: after.rss / MIB, heapMiB: (after.heapUsed - base.heapUsed) / MIB, reachMs, reachCpuMs, reachRssMiB, reached };
  } finally {
    await Promise.all(etcd.map((c) => c.stop()));
  }
}

function print(rows: readonly Measurement[], reach: boolean): void {
  const lines = [
    'kube-apiserver STAND-IN (lab/kube-apiserver, not a real API server): cost of a simulated Cluster API fleet in one process',
    reach ? 'backends: two real 3-member TLS etcd clusters; every cluster reached once through its port-forward and TLS relay' : 'backends: one 3-member backend that runs no process (set-up never dials it)',
    '',
    `clusters  set-up ms  ms/cluster  set-up CPU ms  RSS MiB (before → after)  KiB RSS/cluster  heap MiB added${reach ? '  reach ms  reach CPU ms  reached  RSS MiB after reach' : ''}`,
  ];
  for (const r of rows) {
    const perCluster = ((r.rssMiB - r.baseRssMiB) * 1024) / r.clusters;
    lines.push(
      [
        String(r.clusters).padStart(8),
        r.setupMs.toFixed(0).padStart(9),
        (r.setupMs / r.clusters).toFixed(2).padStart(10),
        r.setupCpuMs.toFixed(0).padStart(13),
        `${r.baseRssMiB.toFixed(0)} → ${r.rssMiB.toFixed(0)}`.padStart(24),
        perCluster.toFixed(0).padStart(15),
        r.heapMiB.toFixed(1).padStart(14),
        ...(reach ? [String(r.reachMs?.toFixed(0)).padStart(8), String(r.reachCpuMs?.toFixed(0)).padStart(12), `${r.reached}/${r.clusters}`.padStart(7), String(r.reachRssMiB?.toFixed(0)).padStart(19)] : []),
      ].join('  '),
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

const args = process.argv.slice(2);
const reach = args.includes('--reach');
const childSize = args.indexOf('--child');
if (childSize >= 0) {
  const result = await measure(Number(args[childSize + 1]), reach);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const sizes = args.filter((a) => /^\d+$/.test(a)).map(Number);
  const rows: Measurement[] = [];
  for (const size of sizes.length > 0 ? sizes : [50, 200, 500]) {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--experimental-strip-types', '--no-warnings', '--no-deprecation', fileURLToPath(import.meta.url), '--child', String(size), ...(reach ? ['--reach'] : [])],
      { encoding: 'utf8', maxBuffer: 16 * MIB },
    );
    rows.push(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Measurement);
  }
  print(rows, reach);
}
