import { readFileSync } from 'node:fs';
import { EtcdCluster, etcdVersion } from '#lab/etcd/cluster.ts';
import { Etcd3MemberClient } from '../../src/etcd/etcd3-member-client.ts';
import { metric, type Metric } from './report.ts';
import { median } from './stats.ts';

// The divergence check's cost on etcd: HashKV reads the whole keyspace of a member. Measured on a
// 3-member TLS cluster filled to each size: the first call (the keyspace not yet read by HashKV since
// the fill) and repeated calls, the disk bytes the member read for it (/proc/<pid>/io read_bytes; 0 when
// the data sit in the page cache, as after a fill), and the latency of 1 KiB writes while every member
// hashes at once, against the same writes without.

const VALUE = Buffer.alloc(64 * 1024, 'v');
const SIZES_MIB = (process.env.HASHKV_SIZES_MIB ?? '100,1024').split(',').map(Number);

function readBytes(pid: number): number {
  const match = /^read_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

async function fill(cluster: EtcdCluster, fromMib: number, toMib: number): Promise<void> {
  const client = cluster.client(0);
  try {
    const perMib = (1024 * 1024) / VALUE.length;
    let next = fromMib * perMib;
    const end = toMib * perMib;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < end) await client.put(`bench/hashkv/${next++}`).value(VALUE);
      }),
    );
  } finally {
    client.close();
  }
}

/** Write latencies (ms) of 1 KiB puts for `ms`, one after the other. */
async function writeLatencies(cluster: EtcdCluster, ms: number): Promise<number[]> {
  const client = cluster.client(0);
  const value = Buffer.alloc(1024, 'w');
  const latencies: number[] = [];
  try {
    const end = performance.now() + ms;
    for (let i = 0; performance.now() < end; i++) {
      const started = performance.now();
      await client.put(`bench/write/${i % 100}`).value(value);
      latencies.push(performance.now() - started);
    }
  } finally {
    client.close();
  }
  return latencies;
}

function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
}

/** Measures HashKV on one etcd binary at each size; the metrics' ids carry the version and size. */
export async function hashKvCost(binary: string | undefined, step: (text: string) => void): Promise<Metric[]> {
  const version = etcdVersion(binary);
  const tag = version.split('.').slice(0, 2).join('.');
  const cluster = await EtcdCluster.start({ size: 3, quotaBackendBytes: 8 * 2 ** 30, ...(binary ? { binary } : {}) });
  const pki = cluster.pki as NonNullable<EtcdCluster['pki']>;
  const tls = { ca: readFileSync(pki.caFile), cert: readFileSync(pki.clientCertFile), key: readFileSync(pki.clientKeyFile) };
  const clients = cluster.members.map((m) => new Etcd3MemberClient({ endpoint: m.clientUrl, tls, timeoutMs: 60_000 }));
  const metrics: Metric[] = [];
  try {
    let filled = 0;
    for (const size of SIZES_MIB) {
      step(`etcd ${version}: filling to ${size} MiB of values`);
      const fillStarted = performance.now();
      await fill(cluster, filled, size);
      filled = size;
      step(`  filled in ${((performance.now() - fillStarted) / 1000).toFixed(0)} s`);
      const status = await clients[0]!.status();
      if (!status.ok || status.value.revision === undefined) throw new Error('member 0 did not answer Status');
      const revision = status.value.revision;
      const pid = cluster.member(0).process?.pid as number;
      const readBefore = readBytes(pid);
      const first = await clients[0]!.hashKv(revision, 120_000);
      if (!first.ok) throw new Error(`HashKV failed: ${first.error.message}`);
      const diskRead = readBytes(pid) - readBefore;
      const repeated: number[] = [];
      for (let i = 0; i < 3; i++) {
        const again = await clients[0]!.hashKv(revision, 120_000);
        if (again.ok) repeated.push(again.ms);
      }
      const id = `hashkv.${tag}.${size}mib`;
      metrics.push(
        metric(`${id}.first`, `HashKV first call, etcd ${tag}, ${size} MiB`, first.ms, 'ms'),
        metric(`${id}.repeated`, `HashKV repeated call (median of 3), etcd ${tag}, ${size} MiB`, median(repeated), 'ms'),
        metric(`${id}.disk-read`, `HashKV first call's disk reads, etcd ${tag}, ${size} MiB`, diskRead / 2 ** 20, 'MiB'),
      );
      step(`  HashKV first ${first.ms.toFixed(0)} ms, repeated ${median(repeated).toFixed(0)} ms, disk read ${(diskRead / 2 ** 20).toFixed(1)} MiB`);
      const quiet = await writeLatencies(cluster, 3000);
      let hashing = true;
      const hashLoop = Promise.all(
        clients.map(async (c) => {
          while (hashing) await c.hashKv(revision, 120_000);
        }),
      );
      const loaded = await writeLatencies(cluster, 3000);
      hashing = false;
      await hashLoop;
      metrics.push(
        metric(`${id}.write-p50-ratio`, `1 KiB write p50 while all members hash / without, etcd ${tag}, ${size} MiB`, median(loaded) / median(quiet), 'ratio', null, `p50 ${median(quiet).toFixed(2)} → ${median(loaded).toFixed(2)} ms`),
        metric(`${id}.write-p99-ratio`, `1 KiB write p99 while all members hash / without, etcd ${tag}, ${size} MiB`, p99(loaded) / p99(quiet), 'ratio', null, `p99 ${p99(quiet).toFixed(2)} → ${p99(loaded).toFixed(2)} ms`),
      );
      step(`  writes p50 ${median(quiet).toFixed(2)} → ${median(loaded).toFixed(2)} ms, p99 ${p99(quiet).toFixed(2)} → ${p99(loaded).toFixed(2)} ms while every member hashes`);
    }
  } finally {
    clients.forEach((c) => c.close());
    await cluster.stop();
  }
  return metrics;
}
