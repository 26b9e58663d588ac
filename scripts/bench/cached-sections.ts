import { cpus } from 'node:os';
import type { EtcdCluster } from '#lab/etcd/cluster.ts';
import { failures, heapText, HEALTHZ, roundsTotal, type BenchContext } from './context.ts';
import { load, type LoadResult } from './load.ts';
import { metric, type Metric } from './report.ts';
import type { ServerChild } from './servers.ts';
import { SETTINGS as S } from './settings.ts';
import { median, percentile, round } from './stats.ts';

/** One slice against one server: requests, seconds, and the server's CPU seconds over it. */
interface Slice {
  readonly result: LoadResult;
  readonly cpu: number;
}

/** Runs against one server, summed over its slices: requests, seconds, CPU seconds of server and client. */
interface Side {
  readonly server: ServerChild;
  requests: number;
  seconds: number;
  serverCpu: number;
  clientCpu: number;
  readonly latencies: number[];
  readonly slices: Slice[];
}

async function slice(side: Side, durationS: number): Promise<Slice> {
  const server0 = side.server.child.cpuSeconds();
  const client0 = process.cpuUsage();
  const result = await load({ url: `${side.server.url}${HEALTHZ}`, connections: S.connections, durationS, latencies: side.latencies });
  const client = process.cpuUsage(client0);
  const cpu = side.server.child.cpuSeconds() - server0;
  side.serverCpu += cpu;
  side.clientCpu += (client.user + client.system) / 1e6;
  side.requests += result.total;
  side.seconds += result.durationS;
  const done = { result, cpu };
  side.slices.push(done);
  return done;
}

function side(server: ServerChild): Side {
  return { server, requests: 0, seconds: 0, serverCpu: 0, clientCpu: 0, latencies: [], slices: [] };
}

const rps = (s: Side) => s.requests / s.seconds;
const cpuPerRequest = (s: Slice) => s.cpu / Math.max(1, s.result.total);

/**
 * 1 and 5a: cached /healthz/etcd against bare Fastify serving the same bytes (throughput and CPU per
 * request), and both servers' RSS over 100k more requests. The bare server runs on the service's Node
 * flags, so that the ratios are the service's own work; a second bare server on Node's defaults shows
 * what those flags cost (information). The measured time per server is cut into slices run in turn,
 * the order reversed every cycle; the service/bare ratios of each cycle are paired, and the targets
 * judge the median pair: drift in the machine's speed falls on both alike, and a burst of other work
 * lands on one pair only.
 */
export async function throughputAndMemory(ctx: BenchContext): Promise<Metric[]> {
  const { cached, bare, bareDefaults } = ctx;
  ctx.step(`warm-up: ${S.warmupS} s each on the service and the two bare servers, ${S.connections} connections`);
  for (const server of [cached, bare, bareDefaults]) await load({ url: `${server.url}${HEALTHZ}`, connections: S.connections, durationS: S.warmupS });
  const rssWarm = cached.child.rssMb();
  const heapWarm = await heapText(cached);

  const sliceS = S.measureS / S.slices;
  ctx.step(`cached throughput: ${S.measureS} s per server in ${S.slices} slices of ${sliceS} s, in turn`);
  const service = side(cached);
  const baseline = side(bare);
  const defaults = side(bareDefaults);
  const rpsRatios: number[] = [];
  const cpuRatios: number[] = [];
  const flagRatios: number[] = [];
  for (let i = 0; i < S.slices; i++) {
    const order = i % 2 === 0 ? [service, baseline, defaults] : [defaults, baseline, service];
    for (const s of order) await slice(s, sliceS);
    const [a, b, d] = [service.slices.at(-1), baseline.slices.at(-1), defaults.slices.at(-1)];
    if (a && b && d) {
      rpsRatios.push(a.result.rps / b.result.rps);
      cpuRatios.push(cpuPerRequest(a) / cpuPerRequest(b));
      flagRatios.push(b.result.rps / d.result.rps);
    }
  }

  ctx.step(`${S.memoryRequests} more requests on the service and the bare server (its flags), for the RSS readings`);
  // Each read right after its own load: an idle server's RSS shrinks.
  const rssBeforeBulk = cached.child.rssMb();
  const bulk = await load({ url: `${cached.url}${HEALTHZ}`, connections: S.connections, amount: S.memoryRequests });
  const rssAfter = cached.child.rssMb();
  const bareBulk = await load({ url: `${bare.url}${HEALTHZ}`, connections: S.connections, amount: S.memoryRequests });
  const rssBare = bare.child.rssMb();
  ctx.readings.bareRssAfterLoad = rssBare;
  const heapAfter = await heapText(cached);

  const cores = (s: Side) =>
    `${round(s.serverCpu / s.seconds)} cores, ${round((s.serverCpu / s.requests) * 1e6, 1)} µs CPU per request (load generator ${round(s.clientCpu / s.seconds)} cores)`;
  const bad = [service, baseline, defaults].flatMap((s) => s.slices.map((x) => failures(s.server.child.name, x.result))).join('');
  const machine = `${cpus().length} CPUs shared by the load generator, the server and ${ctx.cluster.members.length} etcd members`;
  return [
    metric('cached.service_rps', 'cached /healthz/etcd, service', rps(service), 'req/s'),
    metric('cached.bare_rps', 'cached /healthz/etcd, bare fastify', rps(baseline), 'req/s', null, "Same body and headers, same Node flags as the service (npm start's)."),
    metric(
      'cached.throughput_ratio',
      'throughput service/bare (median cycle)',
      median(rpsRatios),
      'ratio',
      { op: '>=', value: S.throughputRatioMin },
      `per-cycle ratios ${rpsRatios.map((r) => round(r)).join(', ')}; over all slices ${round(rps(service) / rps(baseline))}; ${machine}.${bad}`,
    ),
    metric('cached.service_cpu', 'CPU per request, service', (service.serverCpu / service.requests) * 1e6, 'µs', null, cores(service)),
    metric('cached.bare_cpu', 'CPU per request, bare fastify', (baseline.serverCpu / baseline.requests) * 1e6, 'µs', null, cores(baseline)),
    metric(
      'cached.cpu_ratio',
      'CPU per request service/bare (median cycle)',
      median(cpuRatios),
      'ratio',
      { op: '<=', value: S.cpuRatioMax },
      `per-cycle ratios ${cpuRatios.map((r) => round(r)).join(', ')}; over all slices ${round(service.serverCpu / service.requests / (baseline.serverCpu / baseline.requests))}.`,
    ),
    metric(
      'cached.flags_ratio',
      "bare fastify on the service's flags / on Node's defaults",
      median(flagRatios),
      'ratio',
      null,
      `What --max-semi-space-size and --max-old-space-size cost a bare server (median cycle; per cycle ${flagRatios.map((r) => round(r)).join(', ')}): bare fastify on Node's defaults ${Math.round(rps(defaults))} req/s, ${cores(defaults)}.`,
    ),
    metric('cached.service_p99', 'p99 latency, service', percentile(service.latencies, 99), 'ms'),
    metric('cached.bare_p99', 'p99 latency, bare fastify', percentile(baseline.latencies, 99), 'ms'),
    metric('rss.cached.warm', 'RSS cached instance, after warm-up', rssWarm, 'MB', null, `${heapWarm}.`),
    metric('rss.bare.after_load', 'RSS bare fastify, after the same load', rssBare, 'MB', null, `${baseline.requests + bareBulk.total} requests.${failures('bare bulk', bareBulk)}`),
    metric(
      'rss.cached.over_bare',
      `RSS cached instance over bare, after +${S.memoryRequests / 1000}k requests`,
      rssAfter - rssBare,
      'MB',
      { op: '<=', value: S.rssOverBareMaxMb },
      `service ${round(rssAfter, 1)} MB, bare ${round(rssBare, 1)} MB (bare on Node's defaults ${round(bareDefaults.child.rssMb(), 1)} MB after its slices); ${heapAfter}.`,
    ),
    metric('rss.cached.settling', 'RSS growth cached instance, over the measured slices (settling)', rssBeforeBulk - rssWarm, 'MB', null, `${round(rssWarm, 1)} → ${round(rssBeforeBulk, 1)} MB over ${service.requests} requests.`),
    metric('rss.cached.growth', `RSS growth cached instance, next ${S.memoryRequests / 1000}k requests`, rssAfter - rssBeforeBulk, 'MB', { op: '<=', value: S.rssGrowthMaxMb }, `${round(rssBeforeBulk, 1)} → ${round(rssAfter, 1)} MB over ${bulk.total} requests.${failures('bulk', bulk)}`),
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
