import type { ClusterView, MemberView } from '../cluster-view.ts';
import type { ProbeErrorCode } from '../outcome.ts';
import type { LeaderRef } from '../quorum.ts';
import type { MemberRef } from '../reason.ts';
import type { HealthStatus } from '../health-status.ts';

/** A member's state in one round, as history and its timeline show it. */
export type MemberState = 'healthy' | 'unhealthy' | 'unreachable' | 'unknown';

/** One member in one round: compact, so that an hour of rounds stays small. */
export interface MemberRecord {
  readonly id: string;
  readonly name: string;
  readonly state: MemberState;
  /** Its raft applied index, when it answered Status. */
  readonly applied: number | null;
  /** Why it was not healthy (the message is kept once per member, in the history's last failures). */
  readonly failure: ProbeErrorCode | null;
  /**
   * Its database's logical size in use (Status dbSizeInUse) in KiB, when it answered: what the quota ETA is
   * fitted to. KiB keep it a small integer in V8 (a byte count past 1 GiB would be a boxed number, 16 B more a field).
   */
  readonly inUseKiB: number | null;
  /** Its database's allocated size in KiB (Status dbSize, the high-water mark etcd's quota check reads), when it answered. */
  readonly allocatedKiB: number | null;
}

/** What history keeps of one round: no observations, only what transitions and rates are made of. */
export interface RoundRecord {
  /** Epoch ms when the round finished. */
  readonly at: number;
  readonly status: HealthStatus;
  /** A read passed: the members' own read failures in a round without one are the cluster's, not theirs. */
  readonly confirmed: boolean;
  /** The confirmed leader, and the raft term it leads in. */
  readonly leader: MemberRef | null;
  readonly term: number | null;
  readonly members: readonly MemberRecord[];
  /** Active alarms as `<member id>:<alarm>`. */
  readonly alarms: readonly string[];
}

/**
 * A member's state as history counts it. A member that answers but whose read fails in a round where no
 * read passed anywhere is recorded as healthy: the election or lost quorum is the cluster's (its verdict
 * says so), and counting it against every member would make each election look like every member flapping.
 */
export function memberState(m: MemberView, confirmed: boolean): MemberState {
  if (!m.probed) return 'unknown';
  if (!m.reachable) return 'unreachable';
  if (m.healthy || !confirmed) return 'healthy';
  return 'unhealthy';
}

function kib(bytes: number | undefined): number | null {
  return bytes === undefined ? null : Math.round(bytes / 1024);
}

/** A round as history records it, before its status is known (history's own checks are part of the verdict). */
export type ObservedRound = Omit<RoundRecord, 'status'>;

/** The compact record of a round's view, given whether a read confirmed quorum and which leader it confirmed. Pure. */
export function observedRound(view: ClusterView, confirmed: boolean, leader: LeaderRef | null, at: number): ObservedRound {
  return {
    at,
    confirmed,
    leader: leader ? { id: leader.id, name: leader.name } : null,
    term: leader?.term ?? null,
    members: view.members
      .filter((m) => m.listed)
      .map((m) => {
        const state = memberState(m, confirmed);
        return { id: m.id, name: m.name, state, applied: m.status?.raftAppliedIndex ?? null, failure: state === 'healthy' ? null : (m.error?.code ?? null), inUseKiB: kib(m.status?.dbSizeInUseBytes), allocatedKiB: kib(m.status?.dbSizeBytes) };
      }),
    alarms: view.alarms.map((a) => `${a.memberId}:${a.alarm}`),
  };
}

/** The record of a judged round. Pure. */
export function recordOf(
  view: ClusterView,
  verdict: { readonly status: HealthStatus; readonly quorum: { readonly confirmed: boolean }; readonly leader: LeaderRef | null },
  at: number,
): RoundRecord {
  return { ...observedRound(view, verdict.quorum.confirmed, verdict.leader, at), status: verdict.status };
}
