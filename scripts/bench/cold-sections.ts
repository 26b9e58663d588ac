import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { freePorts } from '#lab/ports/free-port.ts';
import { heapText, HEALTHZ, roundsTotal, serviceEnv, type BenchContext } from './context.ts';
import { load, timedGet, timedGetAnyStatus, timedGetJson } from './load.ts';
import { RawEtcd } from './raw-etcd.ts';
import { metric, type Metric } from './report.ts';
import { startFloor, startService, waitForOk, type ServerChild } from './servers.ts';
import { SETTINGS as S } from './settings.ts';
import { median, percentile, round } from './stats.ts';

/** The round duration the service reports in its /healthz/etcd body (durationMs), or NaN. */
function reportedRoundMs(body: unknown): number {
  const value = (body as { durationMs?: unknown } | null)?.durationMs;
  return typeof value === 'number' ? value : Number.NaN;
}

/**
 * Cold answers of a TTL=0 service, the same calls from a bare client, and (when there is one) the
 * floor's answers: bare Fastify making the bare client's calls.
 */
interface ColdSamples {
  readonly service: number[];
  readonly inService: number[];
  readonly raw: number[];
  readonly floor: number[];
  readonly inFloor: number[];
}

/**
 * Samples the service, the bare client and the floor in turn. The order rotates each time, so that none
 * of the three always runs first or always right after the same one (what ran just before, and how long
 * a process then sat idle, changes a sample).
 */
async function sampleCold(cold: ServerChild, raw: RawEtcd, floor: ServerChild | null): Promise<ColdSamples> {
  const samples: ColdSamples = { service: [], inService: [], raw: [], floor: [], inFloor: [] };
  let keep = false;
  const takes: (() => Promise<void>)[] = [
    async () => {
      const s = await timedGetJson(`${cold.url}${HEALTHZ}`);
      if (!keep) return;
      samples.service.push(s.ms);
      samples.inService.push(reportedRoundMs(s.body));
    },
    async () => {
      const r = await raw.fullRound();
      if (keep) samples.raw.push(r);
    },
  ];
  if (floor) {
    takes.push(async () => {
      const f = await timedGetJson(`${floor.url}${HEALTHZ}`);
      if (!keep) return;
      samples.floor.push(f.ms);
      samples.inFloor.push(reportedRoundMs(f.body));
    });
  }
  for (let i = 0; i < S.coldWarmupSamples + S.coldSamples; i++) {
    keep = i >= S.coldWarmupSamples;
    for (let k = 0; k < takes.length; k++) await (takes[(i + k) % takes.length] as () => Promise<void>)();
  }
  return samples;
}

function ratioMetric(size: number, samples: ColdSamples): Metric {
  const service = median(samples.service);
  const raw = median(samples.raw);
  return metric(
    `cold.ratio_${size}`,
    `cold answer / bare client, ${size} member${size === 1 ? '' : 's'} (medians)`,
    service / raw,
    'ratio',
    { op: '<=', value: S.coldRatioMax },
    `service ${round(service)} ms (p95 ${round(percentile(samples.service, 95))}), bare client ${round(raw)} ms (p95 ${round(percentile(samples.raw, 95))}); ` +
      `the round's calls inside the service ${round(median(samples.inService))} ms (${round(median(samples.inService) / raw)} × the bare client), the rest is judging, rendering and HTTP.`,
  );
}

/** The floor's answer over the bare client, and the service's answer over the floor, at one size (information). */
function floorMetrics(size: number, samples: ColdSamples): Metric[] {
  const floor = median(samples.floor);
  const members = `${size} member${size === 1 ? '' : 's'}`;
  return [
    metric(
      `cold.floor_${size}`,
      `floor (bare Fastify + bare client's calls) / bare client, ${members}`,
      floor / median(samples.raw),
      'ratio',
      null,
      `floor ${round(floor)} ms, its calls ${round(median(samples.inFloor))} ms, bare client ${round(median(samples.raw))} ms: what an HTTP answer costs over the same calls made in the asking process.`,
    ),
    metric(`cold.over_floor_${size}`, `cold answer / floor, ${members}`, median(samples.service) / floor, 'ratio', null, `service ${round(median(samples.service))} ms, floor ${round(floor)} ms: the service's own work per cold answer.`),
  ];
}

/** A TTL=0 service and the floor on a cluster, sampled with the bare client, then stopped. */
async function sampleWithFloor(cold: ServerChild, raw: RawEtcd, cluster: EtcdCluster, size: number): Promise<ColdSamples> {
  const floor = await startFloor(`floor-${size}`, cluster);
  try {
    return await sampleCold(cold, raw, floor);
  } finally {
    await floor.child.stop();
  }
}

/** A cluster of `size` TLS members, a TTL=0 service on it, the floor and a bare client: started, measured, stopped. */
async function coldAtSize(ctx: BenchContext, size: number): Promise<ColdSamples> {
  ctx.step(`cold answers at ${size} member${size === 1 ? '' : 's'}: starting a cluster, a TTL=0 service, the floor and a bare client`);
  const cluster = await EtcdCluster.start({ size, tls: true });
  let cold: ServerChild | null = null;
  let raw: RawEtcd | null = null;
  try {
    const [port] = (await freePorts(1)) as [number];
    cold = await startService(`service-cold-${size}`, port, { ...serviceEnv(cluster), ETCD_PROBE_CACHE_TTL: '0s' });
    await waitForOk(cold, HEALTHZ);
    raw = new RawEtcd(cluster.endpoints.split(','), cluster.pki!);
    return await sampleWithFloor(cold, raw, cluster, size);
  } finally {
    raw?.close();
    await cold?.child.stop();
    await cluster.stop();
  }
}

/** The cold ratio on the main cluster of a TTL=0 service on Node's default flags: what npm start's V8 flags cost a cold answer. */
async function coldOnNodeDefaults(ctx: BenchContext): Promise<Metric> {
  ctx.step("cold answers of a TTL=0 service on Node's default flags (the main cluster)");
  const [port] = (await freePorts(1)) as [number];
  const cold = await startService('service-cold-node-defaults', port, { ...serviceEnv(ctx.cluster), ETCD_PROBE_CACHE_TTL: '0s' }, []);
  try {
    await waitForOk(cold, HEALTHZ);
    const samples = await sampleCold(cold, ctx.raw, null);
    const ratio = median(samples.service) / median(samples.raw);
    return metric(
      'cold.ratio_node_defaults',
      `cold answer / bare client, ${ctx.cluster.members.length} members, Node's default flags`,
      ratio,
      'ratio',
      null,
      `The service without npm start's --max-semi-space-size and --max-old-space-size (more young-generation room: fewer scavenges in a round): service ${round(median(samples.service))} ms, bare client ${round(median(samples.raw))} ms.`,
    );
  } finally {
    await cold.child.stop();
  }
}

/**
 * 2: the service's cold HTTP answer (TTL 0s: every request runs a round) against a bare etcd3 client
 * making the same calls (Status, a linearizable Range and MemberList on every member, the alarm list on
 * one), at each cluster size. etcd's own work grows with its members on one machine, so the ratio at
 * each size, not the milliseconds, is what must stay flat.
 */
export async function coldRatios(ctx: BenchContext): Promise<Metric[]> {
  const metrics: Metric[] = [];
  const ratios: number[] = [];
  for (const size of S.coldSizes) {
    let samples: ColdSamples;
    if (size === ctx.cluster.members.length) {
      ctx.step(`cold answers at ${size} members (the main cluster): ${S.coldWarmupSamples} warm-up + ${S.coldSamples} samples, the service, the bare client and the floor in turn`);
      samples = await sampleWithFloor(ctx.cold, ctx.raw, ctx.cluster, size);
      const http: number[] = [];
      for (let i = 0; i < S.coldSamples; i++) http.push(await timedGet(`${ctx.cached.url}${HEALTHZ}`));
      metrics.push(metric('cold.cached_request_median', 'sequential cached request, median', median(http), 'ms', null, 'HTTP and a rendered answer, no round (the cached instance): part of every cold answer.'));
      metrics.push(await coldOnNodeDefaults(ctx));
    } else {
      samples = await coldAtSize(ctx, size);
    }
    const m = ratioMetric(size, samples);
    ratios.push(m.value);
    metrics.push(m, ...floorMetrics(size, samples));
  }
  metrics.push(metric('cold.ratio_spread', 'cold ratio, largest minus smallest over the sizes', Math.max(...ratios) - Math.min(...ratios), 'ratio', null, `sizes ${S.coldSizes.join(', ')}.`));
  return metrics;
}

/** The bare server's RSS after the cached section's load; that load now, when the section did not run. */
async function bareRssAfterLoad(ctx: BenchContext): Promise<number> {
  if (ctx.readings.bareRssAfterLoad === undefined) {
    ctx.step(`${S.memoryRequests} requests on the bare server for its RSS reading`);
    await load({ url: `${ctx.bare.url}${HEALTHZ}`, connections: S.connections, amount: S.memoryRequests });
    ctx.readings.bareRssAfterLoad = ctx.bare.child.rssMb();
  }
  return ctx.readings.bareRssAfterLoad;
}

/**
 * 5b: the cold instance's RSS over S.memoryRounds sequential rounds, twice: the first time it settles
 * (V8 sizes its heap, the allocator its arenas; information), the second must be flat. Against bare
 * Fastify's RSS after its 100k-request load (information: bare Fastify runs no rounds, so it has no
 * "same load" here; the target against it is the cached instance's).
 */
export async function roundsMemory(ctx: BenchContext): Promise<Metric[]> {
  const { cold } = ctx;
  const rssBare = await bareRssAfterLoad(ctx);
  const rounds = async () => {
    const before = await roundsTotal(cold);
    for (let i = 0; i < S.memoryRounds; i++) await timedGet(`${cold.url}${HEALTHZ}`);
    return (await roundsTotal(cold)) - before;
  };
  ctx.step(`2 × ${S.memoryRounds} sequential rounds on the TTL=0s instance for the RSS readings`);
  const rssStart = cold.child.rssMb();
  const heapStart = await heapText(cold);
  const settling = await rounds();
  const rssWarm = cold.child.rssMb();
  const heapWarm = await heapText(cold);
  const measured = await rounds();
  const rssAfter = cold.child.rssMb();
  const heapAfter = await heapText(cold);
  return [
    metric('rss.cold.settling', `RSS growth TTL=0 instance, first ${S.memoryRounds} rounds (settling)`, rssWarm - rssStart, 'MB', null, `${round(rssStart, 1)} → ${round(rssWarm, 1)} MB over ${settling} rounds; ${heapStart} → ${heapWarm}.`),
    metric('rss.cold.growth', `RSS growth TTL=0 instance, next ${S.memoryRounds} rounds`, rssAfter - rssWarm, 'MB', { op: '<=', value: S.rssGrowthMaxMb }, `${round(rssWarm, 1)} → ${round(rssAfter, 1)} MB over ${measured} rounds (the service's etcd_probe_rounds_total); ${heapAfter}.`),
    metric(
      'rss.cold.over_bare',
      `RSS TTL=0 instance over bare, after ${2 * S.memoryRounds} more rounds`,
      rssAfter - rssBare,
      'MB',
      null,
      `service ${round(rssAfter, 1)} MB, bare fastify after its 100k-request load ${round(rssBare, 1)} MB.`,
    ),
  ];
}

/** 3: request latency on the TTL=0s instance while one follower is SIGSTOPped. */
export async function hungMember(ctx: BenchContext): Promise<Metric[]> {
  const { cluster, cold } = ctx;
  const follower = (await cluster.followerIndexes())[0];
  if (follower === undefined) throw new Error('no follower to pause');
  ctx.step(`hung member: SIGSTOP ${cluster.member(follower).name} (a follower), ${S.hungSamples} requests, timeout ${S.timeout}`);
  const samples: { ms: number; status: number }[] = [];
  cluster.pause(follower);
  try {
    for (let i = 0; i < S.hungSamples; i++) samples.push(await timedGetAnyStatus(`${cold.url}${HEALTHZ}`));
  } finally {
    cluster.resume(follower);
    ctx.step('resumed; waiting for the cluster to be healthy');
    await cluster.waitHealthy();
  }
  const latencies = samples.map((s) => s.ms);
  const statuses = [...new Set(samples.map((s) => s.status))].join('/');
  return [
    metric('hung.max', 'one follower hung, max latency', Math.max(...latencies), 'ms', { op: '<=', value: S.timeoutMs + S.hungSlackMs }, `latencies ${latencies.map((ms) => Math.round(ms)).join(', ')} ms; HTTP ${statuses}.`),
    metric('hung.median', 'one follower hung, median latency', median(latencies), 'ms'),
  ];
}
