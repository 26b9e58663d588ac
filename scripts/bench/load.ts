import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';

/** What one autocannon run measured. */
export interface LoadResult {
  /** Completed requests per second over the run (total responses / duration). */
  readonly rps: number;
  readonly total: number;
  readonly durationS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}

/** How to load one URL: concurrent connections, and a duration or a fixed amount, optionally a fixed overall rate. */
export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly durationS?: number;
  readonly amount?: number;
  readonly overallRate?: number;
  /** When given, every response's latency (ms) is pushed here, for percentiles over several runs. */
  readonly latencies?: number[];
}

/** Runs autocannon (in this process, pipelining 1) and returns its numbers. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const run = autocannon({
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    timeout: 10,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationS ?? 10 }),
    ...(options.overallRate !== undefined ? { overallRate: options.overallRate } : {}),
  }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
  const sink = options.latencies;
  if (sink) run.on('response', (_client, _status, _bytes, ms) => sink.push(ms));
  const result = await run;
  const total = result.requests.total;
  return {
    rps: total / result.duration,
    total,
    durationS: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Times one GET (until the whole body is read) in milliseconds, and fails on any status but 200. */
export async function timedGet(url: string, timeoutMs = 10_000): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return ms;
}

/** Times one GET of a JSON document like timedGet, and returns the parsed body as well. */
export async function timedGetJson(url: string, timeoutMs = 10_000): Promise<{ ms: number; body: unknown }> {
  const started = performance.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return { ms, body: JSON.parse(text) as unknown };
}

/** Times one GET like timedGet, but keeps the status instead of failing on it. */
export async function timedGetAnyStatus(url: string, timeoutMs = 10_000): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}
