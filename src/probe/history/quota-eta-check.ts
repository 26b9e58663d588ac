import { formatBytes } from '../format-bytes.ts';
import { estimateQuotaEta, type QuotaEta, type SizeSample } from '../quota-eta.ts';
import { label, reason, type MemberRef, type Reason } from '../reason.ts';
import type { ObservedRound, RoundRecord } from './round-record.ts';

/** The limits of the quota ETA. */
export interface QuotaEtaThresholds {
  /** etcd's backend quota in bytes, as configured. */
  readonly quotaBytes: number;
  /** DB_QUOTA_EXHAUSTION_SOON when a served ETA is under this (ETCD_PROBE_QUOTA_ETA_THRESHOLD). */
  readonly quotaEtaThresholdMs: number;
  /** How far back the growth is fitted (ETCD_PROBE_QUOTA_ETA_WINDOW). */
  readonly quotaEtaWindowMs: number;
}

/** One member's quota ETA this round, and the numbers it was judged from. */
export interface MemberQuotaEta {
  readonly member: MemberRef;
  /** Its size in use this round. */
  readonly inUseBytes: number;
  /** The quota it is measured against, and where that came from. */
  readonly quotaBytes: number;
  readonly quotaSource: 'configured';
  readonly eta: QuotaEta;
}

/** The samples of one member within the window, oldest first, the current round last. */
function samplesOf(past: readonly RoundRecord[], current: ObservedRound, id: string, windowMs: number): SizeSample[] {
  const from = current.at - windowMs;
  let start = past.length;
  while (start > 0 && (past[start - 1] as RoundRecord).at >= from) start--;
  const samples: SizeSample[] = [];
  const take = (r: ObservedRound): void => {
    for (const m of r.members) {
      if (m.id !== id) continue;
      if (m.inUse !== null) samples.push({ at: r.at, inUse: m.inUse });
      return;
    }
  };
  for (let i = start; i < past.length; i++) if ((past[i] as RoundRecord).at < current.at) take(past[i] as RoundRecord);
  take(current);
  return samples;
}

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))}s`;
  if (minutes < 120) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** Every member's quota ETA this round (members that answered Status now), from the round history. Pure. */
export function quotaEtas(past: readonly RoundRecord[], current: ObservedRound, t: QuotaEtaThresholds): MemberQuotaEta[] {
  return current.members.flatMap((m) => {
    if (m.inUse === null) return [];
    const eta = estimateQuotaEta(samplesOf(past, current, m.id, t.quotaEtaWindowMs), t.quotaBytes, t.quotaEtaWindowMs);
    return [{ member: { id: m.id, name: m.name }, inUseBytes: m.inUse, quotaBytes: t.quotaBytes, quotaSource: 'configured' as const, eta }];
  });
}

/** DB_QUOTA_EXHAUSTION_SOON for each member whose served ETA is under the threshold. */
export function judgeQuotaEtas(etas: readonly MemberQuotaEta[], t: QuotaEtaThresholds): Reason[] {
  return etas.flatMap((e) => {
    const { eta } = e;
    if (!eta.served || eta.etaMs >= t.quotaEtaThresholdMs) return [];
    const rate = `${formatBytes(eta.bytesPerSecond * 3600)}/h`;
    return [
      reason(
        'DB_QUOTA_EXHAUSTION_SOON',
        `${label(e.member)}'s database in use grows ${rate} (steady over the last ${duration(eta.spanMs)}): at that rate it reaches the ${formatBytes(e.quotaBytes)} quota in about ${duration(eta.etaMs)}, when etcd raises NOSPACE`,
        { member: e.member },
      ),
    ];
  });
}
