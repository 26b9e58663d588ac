import { cpus } from 'node:os';
import type { EtcdCluster } from '../../test/fixtures/etcd-cluster.ts';
import { failures, heapText, HEALTHZ, roundsTotal, type BenchContext } from './context.ts';
import { load, type LoadResult } from './load.ts';
import { metric, type Metric } from './report.ts';
import type { ServerChild } from './servers.ts';
import { SETTINGS as S } from './settings.ts';
import { percentile, round } from './stats.ts';

/** Runs against one server, summed over its slices: requests, seconds, latencies, CPU seconds of server and client. */
interface Side {
  readonly server: ServerChild;
  requests: number;
  seconds: number;
  serverCpu: number;
  clientCpu: number;
  readonly latencies: number[];
  readonly runs: LoadResult[];
}

async function slice(side: Side, durationS: number): Promise<LoadResult> {
  const server0 = side.server.child.cpuSeconds();
  const client0 = process.cpuUsage();
  const result = await load({ url: `${side.server.url}${HEALTHZ}`, connections: S.connections, durationS, latencies: side.latencies });
  const client = process.cpuUsage(client0);
  side.serverCpu += side.server.child.cpuSeconds() - server0;
  side.clientCpu += (client.user + client.system) / 1e6;
  side.requests += result.total;
  side.seconds += result.durationS;
  side.runs.push(result);
  return result;
}

function side(server: ServerChild): Side {
  return { server, requests: 0, seconds: 0, serverCpu: 0, clientCpu: 0, latencies: [], runs: [] };
}

/**
 * 1 and 5a: cached /healthz/etcd against the bare server, and the cached service's RSS over 100k requests.
 * The measured time per side is cut into slices run alternately, in ABBA order, so that drift in the
 * machine's speed (large here: runs minutes apart differ by ±30 %) falls on both sides alike.
 */
export async function throughputAndMemory(ctx: BenchContext): Promise<Metric[]> {
  const { cached, bare } = ctx;
  ctx.step(`warm-up: ${S.warmupS} s each on the service and the bare server, ${S.connections} connections`);
  await load({ url: `${cached.url}${HEALTHZ}`, connections: S.connections, durationS: S.warmupS });
  await load({ url: `${bare.url}${HEALTHZ}`, connections: S.connections, durationS: S.warmupS });
  const rssWarm = cached.child.rssMb();
  const heapWarm = await heapText(cached);

  const sliceS = S.measureS / S.slices;
  ctx.step(`cached throughput: ${S.measureS} s per side in ${S.slices} alternating slices of ${sliceS} s`);
  const service = side(cached);
  const baseline = side(bare);
  const pairRatios: number[] = [];
  for (let i = 0; i < S.slices; i++) {
    const order = i % 2 === 0 ? [service, baseline] : [baseline, service];
    for (const s of order) await slice(s, sliceS);
    const [a, b] = [service.runs.at(-1), baseline.runs.at(-1)];
    if (a && b) pairRatios.push(a.rps / b.rps);
  }
  const rssBare = bare.child.rssMb();

  ctx.step(`${S.memoryRequests} more cached requests for the RSS reading`);
  const bulk = await load({ url: `${cached.url}${HEALTHZ}`, connections: S.connections, amount: S.memoryRequests });
  const rssAfter = cached.child.rssMb();
  const heapAfter = await heapText(cached);

  const rps = (s: Side) => s.requests / s.seconds;
  const cores = (s: Side) =>
    `server ${round(s.serverCpu / s.seconds)} cores (${round((s.serverCpu / s.requests) * 1e6, 1)} µs CPU per request), load generator ${round(s.clientCpu / s.seconds)} cores`;
  const bad = [...service.runs.map((r) => failures('service', r)), ...baseline.runs.map((r) => failures('bare', r))].join('');
  const note =
    `per-slice-pair ratios ${pairRatios.map((r) => round(r)).join(', ')}; CPU used: service ${cores(service)}, bare ${cores(baseline)}, ` +
    `with ${cpus().length} CPUs shared by the load generator, the server and ${ctx.cluster.members.length} etcd members.${bad}`;
  return [
    metric('cached.service_rps', 'cached /healthz/etcd, service', rps(service), 'req/s'),
    metric('cached.bare_rps', 'cached /healthz/etcd, bare fastify', rps(baseline), 'req/s'),
    metric('cached.throughput_ratio', 'throughput ratio service/bare', rps(service) / rps(baseline), 'ratio', { op: '>=', value: S.throughputRatioMin }, note),
    metric('cached.service_p99', 'p99 latency, service', percentile(service.latencies, 99), 'ms'),
    metric('cached.bare_p99', 'p99 latency, bare fastify', percentile(baseline.latencies, 99), 'ms'),
    metric('rss.cached.warm', 'RSS cached instance, after warm-up', rssWarm, 'MB', { op: '<=', value: S.rssMaxMb }, `${heapWarm}.`),
    metric('rss.cached.after_requests', `RSS cached instance, after +${S.memoryRequests / 1000}k requests`, rssAfter, 'MB', { op: '<=', value: S.rssMaxMb }, `${heapAfter}.`),
    metric('rss.cached.growth', 'RSS growth cached instance', rssAfter - rssWarm, 'MB', { op: '<=', value: S.rssGrowthMaxMb }, `${service.requests + bulk.total} requests on the service between the readings.${failures('bulk', bulk)}`),
    metric('rss.bare.after_load', 'RSS bare fastify, same load (reference)', rssBare, 'MB'),
  ];
}

async function grpcStartedTotal(cluster: EtcdCluster): Promise<number> {
  const counts = await Promise.all(cluster.members.map((_, i) => cluster.metric(i, /^grpc_server_started_total\{[^}]*\} (\d+)/m)));
  return counts.reduce((a, b) => a + b, 0);
}

/** 4: etcd RPCs per second (all members, all methods) while clients poll the cached instance at a fixed rate. */
export async function pollingRpcRate(ctx: BenchContext): Promise<Metric[]> {
  const { cluster, cached } = ctx;
  ctx.step(`polling at ${S.pollRate} req/s for ${S.pollS} s, counting grpc_server_started_total on every member`);
  const rpc0 = await grpcStartedTotal(cluster);
  const rounds0 = await roundsTotal(cached);
  const t0 = performance.now();
  const result = await load({ url: `${cached.url}${HEALTHZ}`, connections: S.pollConnections, durationS: S.pollS, overallRate: S.pollRate });
  const seconds = (performance.now() - t0) / 1000;
  const rpcs = (await grpcStartedTotal(cluster)) - rpc0;
  const rounds = (await roundsTotal(cached)) - rounds0;
  const members = cluster.members.length;
  const target = (members * 3 + 1) / S.cachedTtlS;
  return [
    metric('poll.request_rate', 'achieved poll rate', result.rps, 'req/s', { op: '>=', value: S.pollRate * S.pollRateMinFraction }, failures('poll', result).trim() || undefined),
    metric(
      'poll.etcd_rpc_rate',
      `etcd RPCs at ${S.pollRate / 1000}k req/s (TTL ${S.cachedTtl})`,
      rpcs / seconds,
      'RPC/s',
      { op: '<=', value: target * S.rpcAllowance },
      `${rpcs} RPCs in ${round(seconds)} s over ${rounds} rounds (${round(rpcs / Math.max(1, rounds))} per round); ideal (${members}×3+1)/${S.cachedTtlS} s = ${target} RPC/s, allowed ×${S.rpcAllowance}.`,
    ),
    metric('poll.rounds', 'probe rounds during the poll', rounds, 'rounds'),
  ];
}
