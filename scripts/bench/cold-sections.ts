import { heapText, HEALTHZ, roundsTotal, type BenchContext } from './context.ts';
import { timedGet, timedGetAnyStatus, timedGetJson } from './load.ts';
import { metric, type Metric } from './report.ts';
import { SETTINGS as S } from './settings.ts';
import { median, percentile, round } from './stats.ts';

/** The round duration the service reports in its /healthz/etcd body (durationMs), or NaN. */
function reportedRoundMs(body: unknown): number {
  const value = (body as { durationMs?: unknown } | null)?.durationMs;
  return typeof value === 'number' ? value : Number.NaN;
}

/**
 * 2: sequential cold rounds (TTL 0s) against raw etcd3 Status + Range on every member, interleaved so
 * that drift falls on both. Also, to explain the ratio: the service's own round duration, the raw
 * client doing the service's whole call set, and the HTTP floor (sequential cached requests).
 */
export async function coldRound(ctx: BenchContext): Promise<Metric[]> {
  const { cold, cached, raw } = ctx;
  const service: number[] = [];
  const inService: number[] = [];
  const bare: number[] = [];
  const full: number[] = [];
  const http: number[] = [];
  ctx.step(`cold rounds: ${S.coldWarmupSamples} warm-up + ${S.coldSamples} samples, service / raw etcd3 interleaved`);
  for (let i = 0; i < S.coldWarmupSamples + S.coldSamples; i++) {
    const s = await timedGetJson(`${cold.url}${HEALTHZ}`);
    const r = await raw.statusAndRange();
    const f = await raw.fullRound();
    const h = await timedGet(`${cached.url}${HEALTHZ}`);
    if (i < S.coldWarmupSamples) continue;
    service.push(s.ms);
    inService.push(reportedRoundMs(s.body));
    bare.push(r);
    full.push(f);
    http.push(h);
  }
  return [
    metric('cold.service_median', 'cold round, service median', median(service), 'ms'),
    metric('cold.service_p95', 'cold round, service p95', percentile(service, 95), 'ms'),
    metric('cold.raw_median', 'raw Status+Range slowest member, median', median(bare), 'ms'),
    metric('cold.raw_p95', 'raw Status+Range slowest member, p95', percentile(bare, 95), 'ms'),
    metric('cold.latency_ratio', 'cold latency ratio service/raw (medians)', median(service) / median(bare), 'ratio', { op: '<=', value: S.coldRatioMax }),
    metric('cold.round_in_service_median', 'round duration inside the service, median', median(inService), 'ms', null, 'durationMs of the /healthz/etcd body: the gRPC calls as the service saw them, without HTTP and rendering.'),
    metric(
      'cold.raw_full_median',
      'raw full call set (+MemberList, +Alarm), median',
      median(full),
      'ms',
      null,
      `the service's 10 calls from a bare client; service / raw full call set = ${round(median(service) / median(full))}.`,
    ),
    metric('cold.http_floor_median', 'sequential cached request, median', median(http), 'ms', null, 'HTTP + rendering with no round (cached instance).'),
  ];
}

/** 5b: the cold instance's RSS before and after S.memoryRounds sequential rounds. */
export async function roundsMemory(ctx: BenchContext): Promise<Metric[]> {
  const { cold } = ctx;
  ctx.step(`${S.memoryRounds} sequential rounds on the TTL=0s instance for the RSS reading`);
  const rssWarm = cold.child.rssMb();
  const heapWarm = await heapText(cold);
  const rounds0 = await roundsTotal(cold);
  for (let i = 0; i < S.memoryRounds; i++) await timedGet(`${cold.url}${HEALTHZ}`);
  const rounds = (await roundsTotal(cold)) - rounds0;
  const rssAfter = cold.child.rssMb();
  const heapAfter = await heapText(cold);
  return [
    metric('rss.cold.warm', 'RSS TTL=0 instance, after warm-up', rssWarm, 'MB', { op: '<=', value: S.rssMaxMb }, `${heapWarm}; ${S.coldWarmupSamples + S.coldSamples} rounds so far.`),
    metric('rss.cold.after_rounds', `RSS TTL=0 instance, after +${S.memoryRounds} rounds`, rssAfter, 'MB', { op: '<=', value: S.rssMaxMb }, `${heapAfter}.`),
    metric('rss.cold.growth', 'RSS growth TTL=0 instance', rssAfter - rssWarm, 'MB', { op: '<=', value: S.rssGrowthMaxMb }, `${rounds} rounds between the readings (the service's etcd_probe_rounds_total).`),
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
