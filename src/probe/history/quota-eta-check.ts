import { formatBytes } from '../format-bytes.ts';
import { formatDuration } from '../format-duration.ts';
import { ETA_USAGE_FLOOR, memberQuotaEta, type QuotaEta, type SizeSample } from '../quota-eta.ts';
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
  /** The quota it is measured against, and where that came from: the member's Status (etcd 3.6+), or the setting. */
  readonly quotaBytes: number;
  readonly quotaSource: 'status' | 'configured';
  readonly eta: QuotaEta;
}

/** The sizes of one member within the window, oldest first, the current round last: in use, and allocated. */
function samplesOf(past: readonly RoundRecord[], current: ObservedRound, id: string, windowMs: number): { inUse: SizeSample[]; allocated: SizeSample[] } {
  const from = current.at - windowMs;
  let start = past.length;
  while (start > 0 && (past[start - 1] as RoundRecord).at >= from) start--;
  const inUse: SizeSample[] = [];
  const allocated: SizeSample[] = [];
  const take = (r: ObservedRound): void => {
    for (const m of r.members) {
      if (m.id !== id) continue;
      if (m.inUseKiB !== null) inUse.push({ at: r.at, bytes: m.inUseKiB * 1024 });
      if (m.allocatedKiB !== null) allocated.push({ at: r.at, bytes: m.allocatedKiB * 1024 });
      return;
    }
  };
  for (let i = start; i < past.length; i++) if ((past[i] as RoundRecord).at < current.at) take(past[i] as RoundRecord);
  take(current);
  return { inUse, allocated };
}

/**
 * Every member's quota ETA this round (members that answered Status now), from the round history. A member
 * under the floor by both sizes is withheld without reading its history, so most clusters pay nothing. Pure.
 */
export function quotaEtas(past: readonly RoundRecord[], current: ObservedRound, t: QuotaEtaThresholds, reported: ReadonlyMap<string, number> = new Map()): MemberQuotaEta[] {
  const nospace = current.alarms.some((a) => a.endsWith(':NOSPACE'));
  return current.members.flatMap((m) => {
    if (m.inUseKiB === null) return [];
    const own = reported.get(m.id);
    const quotaBytes = own ?? t.quotaBytes;
    const floorKiB = (quotaBytes * ETA_USAGE_FLOOR) / 1024;
    const under = Math.max(m.inUseKiB, m.allocatedKiB ?? 0) < floorKiB;
    // Under NOSPACE the cluster refuses writes already: ALARM_NOSPACE says so, and no ETA is left to serve.
    const withheld = nospace ? 'at-quota' : under ? 'below-floor' : null;
    let eta: QuotaEta = { served: false, why: withheld ?? 'below-floor', samples: 0, spanMs: 0 };
    if (!withheld) {
      const { inUse, allocated } = samplesOf(past, current, m.id, t.quotaEtaWindowMs);
      eta = memberQuotaEta(inUse, allocated, quotaBytes, t.quotaEtaWindowMs);
    }
    return [{ member: { id: m.id, name: m.name }, inUseBytes: m.inUseKiB * 1024, quotaBytes, quotaSource: own === undefined ? ('configured' as const) : ('status' as const), eta }];
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
        `${label(e.member)}'s database in use grows ${rate} (steady over the last ${formatDuration(eta.spanMs)}): at that rate it reaches the ${formatBytes(e.quotaBytes)} quota in about ${formatDuration(eta.etaMs)}, when etcd raises NOSPACE`,
        { member: e.member },
      ),
    ];
  });
}
