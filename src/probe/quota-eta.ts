/** One round's reading of a member's database size (in use, or allocated): when, and how many bytes. */
export interface SizeSample {
  readonly at: number;
  readonly bytes: number;
}

/** Below this share of the quota in use no ETA is served (Giant Swarm's rule uses the same floor). */
export const ETA_USAGE_FLOOR = 0.5;
/** The samples of a trend must span at least this share of the window... */
export const ETA_MIN_SPAN_SHARE = 0.25;
/** ...and be at least this many rounds. */
export const ETA_MIN_SAMPLES = 10;
/** The fit is steady when the RMS of its residuals is at most this share of the rise it fits. */
export const ETA_MAX_RESIDUAL_SHARE = 0.1;
/** Growing: the later half's rate must be at least this share of the earlier half's... */
export const ETA_MIN_RATE_KEPT = 0.5;
/** ...and at most this multiple of it: a line fitted to an accelerating rise gives an ETA too late, the worst error. */
export const ETA_MAX_RATE_GAIN = 1.5;
/** No ETA further ahead than this many times the span it was fitted on: no far extrapolation. */
export const ETA_MAX_SPANS_AHEAD = 4;
/** A fall between two rounds larger than this share of the quota (a compaction, a defrag) starts a new trend. */
export const ETA_TREND_BREAK_SHARE = 0.01;

/** The size an ETA was fitted to. */
export type EtaBasis = 'in-use' | 'allocated';

/** Why no ETA is served: each is one clause of the rule in docs/metrics-and-alerts.md. */
export type NoEtaWhy = 'below-floor' | 'at-quota' | 'too-few-samples' | 'too-short' | 'not-rising' | 'slowing' | 'accelerating' | 'unsteady' | 'too-far';

/** The estimate for one member: served with its numbers, or withheld with the clause that withheld it. */
export type QuotaEta =
  | {
      readonly served: true;
      /** Milliseconds until the size in use reaches the quota at the fitted rate. */
      readonly etaMs: number;
      /** The fitted growth, bytes per second. */
      readonly bytesPerSecond: number;
      readonly samples: number;
      readonly spanMs: number;
      /** Which size it was fitted to: the data in use, or the allocated high-water mark that etcd's quota check reads. */
      readonly basis: EtaBasis;
    }
  | { readonly served: false; readonly why: NoEtaWhy; readonly samples: number; readonly spanMs: number };

/** The samples of the current trend: those after the last fall larger than ETA_TREND_BREAK_SHARE of the quota. */
export function currentTrend(samples: readonly SizeSample[], quotaBytes: number): readonly SizeSample[] {
  const breakBytes = quotaBytes * ETA_TREND_BREAK_SHARE;
  for (let i = samples.length - 1; i > 0; i--) {
    if ((samples[i - 1] as SizeSample).bytes - (samples[i] as SizeSample).bytes > breakBytes) return samples.slice(i);
  }
  return samples;
}

/** Least-squares slope (bytes/ms) and intercept of size against time, and the RMS of the residuals. */
function fit(samples: readonly SizeSample[]): { slope: number; intercept: number; rms: number } {
  const t0 = (samples[0] as SizeSample).at;
  let sx = 0;
  let sy = 0;
  for (const s of samples) {
    sx += s.at - t0;
    sy += s.bytes;
  }
  const n = samples.length;
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  for (const s of samples) {
    const dx = s.at - t0 - mx;
    sxx += dx * dx;
    sxy += dx * (s.bytes - my);
  }
  const slope = sxx > 0 ? sxy / sxx : 0;
  const intercept = my - slope * mx;
  let sse = 0;
  for (const s of samples) {
    const r = s.bytes - (intercept + slope * (s.at - t0));
    sse += r * r;
  }
  return { slope, intercept, rms: Math.sqrt(sse / n) };
}

/**
 * The time until a member's database in use reaches the quota, from its samples in the window (oldest
 * first, the current round last), served only when the estimate is meaningful: at least half the quota
 * in use, a trend since the last fall that spans a quarter of the window in 10 rounds or more, rising,
 * its later half's rate between half and 1.5 times its earlier half's, a straight line fitting it (residuals
 * within 10 % of the rise), and the ETA no further than 4 spans ahead. Pure.
 */
export function estimateQuotaEta(samples: readonly SizeSample[], quotaBytes: number, windowMs: number, basis: EtaBasis = 'in-use'): QuotaEta {
  const trend = currentTrend(samples, quotaBytes);
  const first = trend[0];
  const last = trend.at(-1);
  const spanMs = first && last ? last.at - first.at : 0;
  const none = (why: NoEtaWhy): QuotaEta => ({ served: false, why, samples: trend.length, spanMs });
  if (!last || last.bytes < quotaBytes * ETA_USAGE_FLOOR) return none('below-floor');
  if (last.bytes >= quotaBytes) return none('at-quota');
  if (trend.length < ETA_MIN_SAMPLES) return none('too-few-samples');
  if (spanMs < windowMs * ETA_MIN_SPAN_SHARE) return none('too-short');
  const { slope, rms } = fit(trend);
  const rise = slope * spanMs;
  if (!(slope > 0)) return none('not-rising');
  const mid = Math.floor(trend.length / 2);
  const early = fit(trend.slice(0, mid + 1)).slope;
  const late = fit(trend.slice(mid)).slope;
  if (late < early * ETA_MIN_RATE_KEPT) return none('slowing');
  if (late > early * ETA_MAX_RATE_GAIN) return none('accelerating');
  if (rms > rise * ETA_MAX_RESIDUAL_SHARE) return none('unsteady');
  const etaMs = (quotaBytes - last.bytes) / slope;
  if (etaMs > spanMs * ETA_MAX_SPANS_AHEAD) return none('too-far');
  return { served: true, etaMs: Math.round(etaMs), bytesPerSecond: Math.round(slope * 1000), samples: trend.length, spanMs, basis };
}

/**
 * A member's ETA from both of its sizes. etcd refuses a write when the allocated size (Status dbSize, the
 * bbolt high-water mark) plus the write's cost reaches the quota; free pages inside the file absorb growth
 * first, so the data in use is the trend to fit. But new writes also leave free pages that later writes
 * cannot reuse, so while the allocated size itself rises steadily it reaches the quota first: the earlier
 * served ETA wins, and none is served while the allocated size accelerates. An allocated size inflated by
 * old fragmentation is flat, and never serves one. Pure.
 */
export function memberQuotaEta(inUse: readonly SizeSample[], allocated: readonly SizeSample[], quotaBytes: number, windowMs: number): QuotaEta {
  const byUse = estimateQuotaEta(inUse, quotaBytes, windowMs, 'in-use');
  const bySize = estimateQuotaEta(allocated, quotaBytes, windowMs, 'allocated');
  if (bySize.served && (!byUse.served || bySize.etaMs < byUse.etaMs)) return bySize;
  // The allocated size speeding up (the file's free pages used up) brings NOSPACE sooner than any line
  // through the data in use says: no ETA then, rather than a late one.
  if (!bySize.served && (bySize.why === 'at-quota' || (bySize.why === 'accelerating' && byUse.served))) return bySize;
  return byUse;
}
