import autocannon from 'autocannon';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
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

// One kept-alive connection per server for the timed requests: node:http costs the client about 0.2 ms
// less per request than fetch here, time that is the client's, not the service's.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET, its status, headers, body and milliseconds until the whole body was read. */
function get(url: string, timeoutMs: number): Promise<{ ms: number; status: number; text: string; headers: IncomingHttpHeaders }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ ms: performance.now() - started, status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: response.headers }),
      );
      response.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Times one GET (until the whole body is read) in milliseconds, and fails on any status but 200. */
export async function timedGet(url: string, timeoutMs = 10_000): Promise<number> {
  const { ms, status } = await get(url, timeoutMs);
  if (status !== 200) throw new Error(`GET ${url}: HTTP ${status}`);
  return ms;
}

/** Times one GET of a JSON document like timedGet, and returns the parsed body as well. */
export async function timedGetJson(url: string, timeoutMs = 10_000): Promise<{ ms: number; body: unknown }> {
  const { ms, status, text } = await get(url, timeoutMs);
  if (status !== 200) throw new Error(`GET ${url}: HTTP ${status}`);
  return { ms, body: JSON.parse(text) as unknown };
}

/** Times one GET like timedGet, but keeps the status instead of failing on it. */
export async function timedGetAnyStatus(url: string, timeoutMs = 10_000): Promise<{ ms: number; status: number }> {
  const { ms, status } = await get(url, timeoutMs);
  return { ms, status };
}

/** Times one GET like timedGetAnyStatus, and keeps the response headers (Age, Cache-Status). */
export async function timedGetHeaders(url: string, timeoutMs = 10_000): Promise<{ ms: number; status: number; headers: IncomingHttpHeaders }> {
  const { ms, status, headers } = await get(url, timeoutMs);
  return { ms, status, headers };
}

/** Closes the kept-alive connections of the timed requests (at the end of a run). */
export function closeTimedConnections(): void {
  agent.destroy();
}
