import type { MemberView } from './cluster-view.ts';
import type { HistoryThresholds } from './history/history-checks.ts';
import type { QuotaEtaThresholds } from './history/quota-eta-check.ts';
import { formatBytes } from './format-bytes.ts';
import { label, reason, type MemberRef, type Reason } from './reason.ts';

/** The limits a round is judged against. */
export interface Thresholds extends HistoryThresholds, QuotaEtaThresholds {
  /** How many raft entries a follower may trail the leader. */
  readonly maxRaftGap: number;
  /** A control-plane node younger than this may lack its etcd member without NODE_WITHOUT_MEMBER. */
  readonly nodeGraceMs: number;
  /** How long a majority may answer without a confirmed leader before NO_LEADER becomes QUORUM_LOST. */
  readonly electionGraceMs: number;
}

/** dbSize at or above this share of the quota is DB_QUOTA_HIGH. */
export const QUOTA_HIGH_RATIO = 0.8;
/** ...and at or above this share the message says NOSPACE is imminent. */
export const QUOTA_CRITICAL_RATIO = 0.95;
/** etcd rejects proposals when committed - applied exceeds this (etcdserver maxGapBetweenApplyAndCommitIndex). */
export const MAX_APPLY_LAG = 5000;
/** In-use below this share of the allocated file is fragmented... */
export const FRAGMENTED_RATIO = 0.5;
/** ...when at least this much could be reclaimed. */
export const FRAGMENTED_MIN_BYTES = 100 * 2 ** 20;

function percent(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}

/** What other findings already say, so that a member's own reasons do not repeat them. */
export interface AlreadySaid {
  /** A cluster-wide reason (NO_LEADER, QUORUM_LOST) accounts for every failed read. */
  readonly readFailures: boolean;
  /** The member's failure only echoes the unusable Kubernetes API (KUBE_API_* says it once). */
  readonly echoesKubeApi: (m: MemberView) => boolean;
  /** The node and pod checks already explain why the member could not be dialled. */
  readonly kubeExplains: (m: MemberView) => boolean;
  /** NOSPACE is raised: ALARM_NOSPACE says the quota is reached, so no member's DB_QUOTA_HIGH forecasts it. */
  readonly nospace: boolean;
}

function reachability(m: MemberView, said: AlreadySaid): Reason[] {
  const about = { member: m, endpoint: m.endpoint };
  if (m.listed && m.name === '' && m.clientURLs.length === 0) {
    return [reason('UNSTARTED_MEMBER', `${label(m)} (peer ${m.peerURLs.join(', ') || 'unknown'}) was added but has not started`, about)];
  }
  if (!m.probed) {
    if (said.kubeExplains(m)) return [];
    return [reason('MEMBER_NOT_PROBED', `${label(m)} is listed, but no probed endpoint reaches it, so its health is unknown`, about)];
  }
  if (!m.reachable && m.error?.code === 'WRONG_MEMBER') {
    return [reason('MEMBER_ID_MISMATCH', `${label(m)}: ${m.error.message}`, about)];
  }
  if (!m.reachable) {
    if (said.echoesKubeApi(m)) return [];
    return [reason('MEMBER_UNREACHABLE', `${label(m)} at ${m.endpoint}: ${m.error?.message ?? 'no answer'}`, about)];
  }
  // When no read passed anywhere, every member's failed read is the cluster's NO_LEADER or QUORUM_LOST,
  // said once there; when one passed, a member whose read fails is a finding of its own.
  if (!m.healthy && !said.readFailures) {
    return [reason('MEMBER_UNHEALTHY', `${label(m)} answers Status but its linearizable read failed: ${m.error?.message ?? 'unknown error'}`, about)];
  }
  return [];
}

function storage(m: MemberView, t: Thresholds, said: AlreadySaid): Reason[] {
  const s = m.status;
  if (!s) return [];
  const reasons: Reason[] = [];
  const about = { member: m, endpoint: m.endpoint };
  const used = s.dbSizeBytes / t.quotaBytes;
  if (used >= QUOTA_HIGH_RATIO && !said.nospace) {
    const imminent = used >= QUOTA_CRITICAL_RATIO ? ' — NOSPACE is imminent and will stop every write' : '';
    reasons.push(
      reason(
        'DB_QUOTA_HIGH',
        `${label(m)}'s database is ${formatBytes(s.dbSizeBytes)}, ${percent(used)} of the ${formatBytes(t.quotaBytes)} quota${imminent}`,
        about,
      ),
    );
  }
  const reclaimable = s.dbSizeBytes - s.dbSizeInUseBytes;
  if (s.dbSizeBytes > 0 && s.dbSizeInUseBytes / s.dbSizeBytes < FRAGMENTED_RATIO && reclaimable > FRAGMENTED_MIN_BYTES) {
    reasons.push(
      reason(
        'DB_FRAGMENTED',
        `${label(m)} uses ${formatBytes(s.dbSizeInUseBytes)} of its ${formatBytes(s.dbSizeBytes)} database file (${percent(s.dbSizeInUseBytes / s.dbSizeBytes)}); ${formatBytes(reclaimable)} could be reclaimed`,
        about,
      ),
    );
  }
  return reasons;
}

function raft(m: MemberView, leader: MemberView | undefined, t: Thresholds): Reason[] {
  const s = m.status;
  if (!s) return [];
  const reasons: Reason[] = [];
  const about = { member: m, endpoint: m.endpoint };
  const applyLag = s.raftIndex - s.raftAppliedIndex;
  if (applyLag > MAX_APPLY_LAG) {
    reasons.push(
      reason(
        'RAFT_APPLY_LAG',
        `${label(m)} has ${applyLag} committed entries not yet applied (raft index ${s.raftIndex}, applied ${s.raftAppliedIndex}; etcd rejects proposals beyond ${MAX_APPLY_LAG})`,
        about,
      ),
    );
  }
  if (leader?.status && leader.id !== m.id) {
    const gap = leader.status.raftIndex - s.raftIndex;
    if (gap > t.maxRaftGap) {
      reasons.push(
        reason(
          'MEMBER_BEHIND',
          `${label(m)} trails the leader ${label(leader)} by ${gap} raft entries (${s.raftIndex} vs ${leader.status.raftIndex}; allowed ${t.maxRaftGap})`,
          about,
        ),
      );
    }
  }
  return reasons;
}

/** The reasons that concern one member each: reachability, storage, raft progress, learners; none that `said` covers. */
export function judgeMembers(members: readonly MemberView[], leader: MemberRef | null, t: Thresholds, said: AlreadySaid): Reason[] {
  const leaderView = leader ? members.find((m) => m.id === leader.id) : undefined;
  return members.flatMap((m) => [
    ...reachability(m, said),
    ...storage(m, t, said),
    ...raft(m, leaderView, t),
    ...(m.isLearner
      ? [reason('LEARNER_PRESENT', `${label(m)} is a learner: it replicates but does not vote`, { member: m, endpoint: m.endpoint })]
      : []),
  ]);
}
