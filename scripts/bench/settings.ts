/** The bench's fixed parameters, written into results.json next to the metrics. */
export const SETTINGS = {
  /** autocannon connections for the throughput runs (pipelining 1). */
  connections: 50,
  warmupS: 3,
  measureS: 10,
  /** The measured seconds per side are run as this many alternating slices (ABBA order). */
  slices: 5,
  cachedTtl: '5s',
  cachedTtlS: 5,
  timeout: '1s',
  timeoutMs: 1000,
  /** Slack over the timeout that a request with one hung member may take. */
  hungSlackMs: 100,
  hungSamples: 5,
  coldWarmupSamples: 20,
  coldSamples: 100,
  coldRatioMax: 1.3,
  throughputRatioMin: 0.85,
  pollRate: 5000,
  /**
   * Long enough that one round more or less (from where the TTL boundaries fall in the window) moves the
   * rate by less than the 25 % allowance: one round is 10 RPCs, 10 / 25 s = 0.4 RPC/s < 0.25 × 2 RPC/s.
   */
  pollS: 25,
  pollConnections: 50,
  rpcAllowance: 1.25,
  /** The rate is only meaningful if the load generator really sent about pollRate. */
  pollRateMinFraction: 0.95,
  memoryRequests: 100_000,
  memoryRounds: 1000,
  rssMaxMb: 100,
  /** "Flat": growth we accept as heap settling rather than a leak (10 % of the RSS budget). */
  rssGrowthMaxMb: 10,
};
