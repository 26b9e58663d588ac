import { judgeData, type DataFindings } from './data-check/data-checks.ts';
import { judgeAlarms, judgeClusterIds, judgeMembership, judgeReachability, judgeStrayEndpoints, judgeVersions } from './cluster-checks.ts';
import type { ClusterView } from './cluster-view.ts';
import { echoesKubeApi, judgeKube, kubeExplains } from './kube-checks.ts';
import { judgeHistory } from './history/history-checks.ts';
import { judgeQuotaEtas, quotaEtas, type MemberQuotaEta } from './history/quota-eta-check.ts';
import { observedRound, type RoundRecord } from './history/round-record.ts';
import { NO_MEMORY, type LeaderMemory } from './leader-memory.ts';
import { readLeadership, type Leadership } from './leadership.ts';
import { judgeMembers, type Thresholds } from './member-checks.ts';
import { judgeQuorum, type LeaderRef, type QuorumFacts } from './quorum.ts';
import type { HealthStatus } from './health-status.ts';
import { reasonOrder } from './reason-order.ts';
import { label, reason, type Reason } from './reason.ts';


/** What earlier rounds tell the verdict: when a leader was last confirmed, and the recent rounds' records. */
export interface RecentRounds {
  readonly memory: LeaderMemory;
  /** Earlier rounds, oldest first (at least as far back as the longest history check's window). */
  readonly history: readonly RoundRecord[];
  /** What the divergence check found last (it runs on its own schedule); absent or null before its first comparison. */
  readonly data?: DataFindings | null;
}

/** No earlier rounds: the first round, or a one-shot check. */
export const NO_RECENT_ROUNDS: RecentRounds = { memory: NO_MEMORY, history: [] };

/** The judgement of one round. */
export interface Verdict {
  readonly status: HealthStatus;
  /** In reasonOrder: most severe first, then what is wrong now before what history says. */
  readonly reasons: readonly Reason[];
  readonly quorum: QuorumFacts;
  /** The leader, only when a read confirmed that one holds a quorum this round. */
  readonly leader: LeaderRef | null;
  readonly clusterId: string | null;
  /** Each member's quota ETA this round (served or withheld, with why), for every member that answered Status. */
  readonly quotaEta: readonly MemberQuotaEta[];
}


/** LEADER_DISAGREEMENT when a leader is confirmed but not every member that answered follows it. */
function judgeLeaderSplit(leadership: Leadership, leader: LeaderRef | null): Reason[] {
  if (!leader || !leadership.split) return [];
  return [reason('LEADER_DISAGREEMENT', `members disagree on the leader: ${leadership.split}`)];
}

/**
 * Judges a round's view: a pure function of its inputs, with no I/O and no clock of its own (`now` is
 * passed for rules that weigh age, `memory` carries what earlier rounds proved about leadership).
 * Unhealthy is a result here, never an exception.
 */
export function judge(view: ClusterView, thresholds: Thresholds, now: number, recent: RecentRounds = NO_RECENT_ROUNDS): Verdict {
  const { memory } = recent;
  const own = view.members;
  const unreachable = judgeReachability(view);
  const anyReachable = view.endpoints.some((e) => e.reachable && e.clusterId === view.clusterId);
  const leadership = readLeadership(own);
  const { quorum, leader, reasons: quorumReasons } = judgeQuorum({
    members: own,
    leadership,
    memory,
    electionGraceMs: thresholds.electionGraceMs,
    now,
    anyReachable,
  });
  const observed = observedRound(view, quorum.confirmed, leader, now);
  const reportedQuotas = new Map(own.flatMap((m) => (m.status?.dbSizeQuotaBytes ? [[m.id, m.status.dbSizeQuotaBytes] as const] : [])));
  const quotaEta = quotaEtas(recent.history, observed, thresholds, reportedQuotas);
  const found = [
    ...unreachable,
    ...judgeClusterIds(view),
    ...judgeStrayEndpoints(view),
    ...quorumReasons,
    ...judgeLeaderSplit(leadership, leader),
    ...judgeAlarms(view),
    ...judgeMembership(view),
    ...judgeVersions(view),
    ...judgeMembers(own, leader, thresholds, {
      readFailures: quorumReasons.some((r) => r.code === 'NO_LEADER' || r.code === 'QUORUM_LOST'),
      echoesKubeApi: (m) => echoesKubeApi(view, m.error?.layer),
      kubeExplains: (m) => kubeExplains(view, m),
      nospace: view.alarms.some((a) => a.alarm === 'NOSPACE'),
    }),
    ...judgeKube(view, thresholds.nodeGraceMs, now),
    ...judgeHistory(recent.history, observed, thresholds),
    ...judgeQuotaEtas(quotaEta, thresholds),
    ...judgeData(recent.data ?? null, own),
  ];
  const reasons = found.sort(reasonOrder);
  const status: HealthStatus = reasons.some((r) => r.severity === 'unhealthy')
    ? 'unhealthy'
    : reasons.some((r) => r.severity === 'degraded')
      ? 'degraded'
      : 'healthy';
  return { status, reasons, quorum, leader, clusterId: view.clusterId, quotaEta };
}

/**
 * Whether a member is the leader and answered this round: the only sense in which any view shows a
 * member as "the leader", so that a hung or unreachable member is never presented as a working leader.
 */
export function isAnsweringLeader(verdict: Pick<Verdict, 'leader'>, memberId: string): boolean {
  return verdict.leader?.id === memberId && verdict.leader.reachable;
}
