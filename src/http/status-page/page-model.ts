import type { Policy } from '../../config/config.ts';
import type { DisruptionBudget } from '../../probe/disruption.ts';
import type { HistoryReport } from '../../probe/history/history-report.ts';
import type { CacheRead } from '../../probe/round-cache.ts';
import type { Snapshot } from '../../probe/snapshot.ts';
import { alarmsDocument, healthzDocument, memberDocument, membersDocument } from '../documents.ts';

/** The `/healthz/etcd` document, as the page shows it. */
export type HealthDoc = ReturnType<typeof healthzDocument>;
/** The `/members` document. */
export type MembersDoc = ReturnType<typeof membersDocument>;
/** One `/members` item. */
export type MemberDoc = ReturnType<typeof memberDocument>;
/** The `/alarms` document. */
export type AlarmsDoc = ReturnType<typeof alarmsDocument>;

/** The page never polls more often than this, whatever the TTL (a TTL of 0 makes every request a round). */
export const MIN_REFRESH_MS = 1000;
/** Polls land this long after the cached round goes stale, so that they start the next round. */
const STALE_SLACK_MS = 50;

/** Everything the status page shows: the same documents the JSON routes answer, plus the page's settings. */
export interface StatusPageModel {
  readonly health: HealthDoc;
  readonly members: MembersDoc;
  readonly alarms: AlarmsDoc;
  /** etcd's backend quota, the scale of the database bars. */
  readonly quotaBytes: number;
  readonly cacheTtlMs: number;
  /** When the script should fetch again: when this round goes stale, so that the poll starts the next one. */
  readonly nextRefreshMs: number;
  /** The last window of rounds, for the timeline; null where none is kept. */
  readonly history: HistoryReport | null;
  /** Whether each member may stop now; null where not computed. */
  readonly budget: DisruptionBudget | null;
}

/** What the page adds to the documents: the history of the window and the disruption budget. */
export interface PageExtras {
  readonly history: HistoryReport | null;
  readonly budget: DisruptionBudget | null;
}

/** Builds the page's model from one cache read with the JSON routes' own document builders. */
export function statusPageModel(
  read: CacheRead<Snapshot>,
  settings: { policy: Policy; cacheTtlMs: number; quotaBytes: number },
  now: number,
  extras: PageExtras = { history: null, budget: null },
): StatusPageModel {
  const ageMs = Math.max(0, now - read.completedAt);
  return {
    health: healthzDocument(read.value, settings.policy),
    members: membersDocument(read.value),
    alarms: alarmsDocument(read.value),
    quotaBytes: settings.quotaBytes,
    cacheTtlMs: settings.cacheTtlMs,
    nextRefreshMs: Math.max(MIN_REFRESH_MS, settings.cacheTtlMs - ageMs + STALE_SLACK_MS),
    ...extras,
  };
}
