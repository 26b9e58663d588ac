/** The bench's fixed parameters, written into results.json next to the metrics. */
export const SETTINGS = {
  /** autocannon connections for the throughput runs (pipelining 1). */
  connections: 50,
  warmupS: 3,
  measureS: 24,
  /**
   * The measured seconds per server are run as this many slices, the servers in turn (the order reversed
   * every cycle). Each cycle gives a ratio; the targets judge the median cycle, so that a burst of other
   * work on the machine, which lands on a few slices, does not decide the run.
   */
  slices: 16,
  cachedTtl: '5s',
  cachedTtlS: 5,
  timeout: '1s',
  timeoutMs: 1000,
  /** Slack over the timeout that a request with one hung member may take. */
  hungSlackMs: 100,
  hungSamples: 5,
  /** The hung-poll section: one GET every this many ms, for this many TTLs of the cached instance. */
  hungPollEveryMs: 100,
  hungPollTtls: 4,
  /** Target of the hung-poll section: a poll never waits on the hung member's round. */
  hungPollP99MaxMs: 100,
  coldWarmupSamples: 10,
  coldSamples: 60,
  /** Cluster sizes the cold ratio is measured at (3 is the main cluster). */
  coldSizes: [1, 3, 5, 7],
  coldRatioMax: 1.25,
  throughputRatioMin: 0.9,
  cpuRatioMax: 1.15,
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
  /** The service's RSS may exceed the bare Fastify server's under the same load by this much. */
  rssOverBareMaxMb: 25,
  /** "Flat": growth we accept as heap settling rather than a leak. */
  rssGrowthMaxMb: 10,
};
