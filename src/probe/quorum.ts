import type { MemberView } from './cluster-view.ts';
import { reason, type Reason } from './reason.ts';

/** The quorum arithmetic of a round, as reported to callers. */
export interface QuorumFacts {
  /** Members in the membership, learners included. */
  readonly members: number;
  /** Voting members: learners excluded, unstarted members included. */
  readonly voting: number;
  /** floor(voting / 2) + 1. */
  readonly required: number;
  /** Voting members whose linearizable read passed. */
  readonly healthyVoting: number;
  /** healthyVoting - required, never below 0 (a negative margin is QUORUM_LOST). */
  readonly faultTolerance: number;
}

/**
 * Quorum from two signals: a linearizable read that passed on any voting member proves that a leader
 * holds a quorum right now (ReadIndex confirms leadership with a majority); the count of healthy voting
 * members gives the margin. Members that were not probed are unknown, neither healthy nor failed.
 */
export function judgeQuorum(members: readonly MemberView[], anyReachable: boolean): { quorum: QuorumFacts; reasons: Reason[] } {
  const inMembership = members.filter((m) => m.listed);
  const voting = inMembership.filter((m) => !m.isLearner);
  const required = voting.length === 0 ? 0 : Math.floor(voting.length / 2) + 1;
  const healthyVoting = voting.filter((m) => m.healthy).length;
  const unknown = voting.filter((m) => !m.probed && m.name !== '').length;
  const quorum: QuorumFacts = {
    members: inMembership.length,
    voting: voting.length,
    required,
    healthyVoting,
    faultTolerance: Math.max(0, healthyVoting - required),
  };
  // With nothing reachable there is no evidence either way; NO_MEMBER_REACHABLE says so instead.
  if (!anyReachable) return { quorum, reasons: [] };
  if (voting.length === 0) {
    return { quorum, reasons: [reason('MEMBERSHIP_UNKNOWN', 'members answered, but none listed the membership, so quorum cannot be counted')] };
  }
  const counts = `${healthyVoting} of ${voting.length} voting members healthy, ${required} required`;
  if (healthyVoting === 0) {
    return {
      quorum,
      reasons: [reason('QUORUM_LOST', `no voting member completed a linearizable read, so no leader holds a quorum (${counts})`)],
    };
  }
  if (healthyVoting + unknown < required) {
    return {
      quorum,
      reasons: [
        reason(
          'QUORUM_LOST',
          `only ${counts}: fewer healthy voting members than a quorum ` +
            '(a read did pass consensus, so members this probe cannot reach may still be serving the leader)',
        ),
      ],
    };
  }
  return { quorum, reasons: [] };
}
