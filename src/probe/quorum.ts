import type { MemberView } from './cluster-view.ts';
import { leaderlessSince, type LeaderMemory } from './leader-memory.ts';
import type { Leadership } from './leadership.ts';
import { label, reason, type MemberRef, type Reason } from './reason.ts';

/** The quorum arithmetic of a round, as reported to callers. */
export interface QuorumFacts {
  /** Members in the membership, learners included. */
  readonly members: number;
  /** Voting members: learners excluded, unstarted members included. */
  readonly voting: number;
  /** floor(voting / 2) + 1. */
  readonly required: number;
  /** Voting members that answered Status at all. */
  readonly answering: number;
  /** Voting members whose linearizable read passed. */
  readonly healthyVoting: number;
  /** A linearizable read passed this round: a leader held a quorum (ReadIndex confirms it with a majority). */
  readonly confirmed: boolean;
  /** healthyVoting - required, never below 0; 0 when the margin is unknown or quorum is not confirmed. */
  readonly faultTolerance: number;
}

/** The leader of a round: named by the members, and whether etcd-probe reached it itself. */
export interface LeaderRef extends MemberRef {
  /** It answered Status. False when only the members that follow it (and a read that passed) vouch for it. */
  readonly reachable: boolean;
  /** The raft term it leads in, as the members that follow it report. */
  readonly term: number;
}

/** What the quorum rules read: the round's members, who they follow, what recent rounds proved, and the clock. */
export interface QuorumInput {
  readonly members: readonly MemberView[];
  readonly leadership: Leadership;
  readonly memory: LeaderMemory;
  readonly electionGraceMs: number;
  readonly now: number;
  /** Some endpoint of this cluster answered; false leaves the verdict to NO_MEMBER_REACHABLE. */
  readonly anyReachable: boolean;
}

/** The quorum rules' findings: the facts, the leader (null unless a read confirmed one), and the reasons. */
export interface QuorumJudgement {
  readonly quorum: QuorumFacts;
  readonly leader: LeaderRef | null;
  readonly reasons: Reason[];
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
}

function names(members: readonly MemberView[]): string {
  return members.map(label).join(', ');
}

/** Why no read passed although a majority answers: which of the three shapes of an election this is. */
function electionState(input: QuorumInput, answering: number, voting: number): string {
  const { named, selfConfirmed, followers } = input.leadership;
  const counts = `${answering} of ${voting} voting members answer`;
  if (named && !selfConfirmed) return `election in progress: ${counts}, the last leader ${label(named)} stopped answering`;
  if (named) return `${counts} and ${followers.join(', ')} follow ${label(named)}, but no read passed consensus: the leader cannot confirm it holds a quorum (an election is starting, or it lost its followers)`;
  const last = input.memory.lastLeader ? `; the last leader was ${label(input.memory.lastLeader)}` : '';
  return `election in progress: ${counts}, none of them knows a leader${last}`;
}

/**
 * Quorum from the evidence of one round and the memory of recent ones. A linearizable read that passed
 * anywhere proves that a leader holds a quorum: such a round never says QUORUM_LOST, and members the
 * probe cannot reach only make the margin unknown. Without such a read, a majority that answers is in
 * an election (NO_LEADER) until the election grace runs out; fewer than a majority is a lost quorum.
 */
export function judgeQuorum(input: QuorumInput): QuorumJudgement {
  const inMembership = input.members.filter((m) => m.listed);
  const voting = inMembership.filter((m) => !m.isLearner);
  const required = voting.length === 0 ? 0 : Math.floor(voting.length / 2) + 1;
  const healthy = voting.filter((m) => m.readPassed);
  const answering = voting.filter((m) => m.reachable).length;
  const confirmed = input.members.some((m) => m.readPassed && !m.isLearner);
  const marginKnown = confirmed && healthy.length >= required;
  const quorum: QuorumFacts = {
    members: inMembership.length,
    voting: voting.length,
    required,
    answering,
    healthyVoting: healthy.length,
    confirmed,
    faultTolerance: marginKnown ? healthy.length - required : 0,
  };
  const { named } = input.leadership;
  const leaderView = named ? input.members.find((m) => m.id === named.id) : undefined;
  const leader: LeaderRef | null = confirmed && named ? { ...named, reachable: leaderView?.reachable ?? false, term: input.leadership.term } : null;
  const result = (reasons: Reason[]): QuorumJudgement => ({ quorum, leader, reasons });

  // With nothing reachable there is no evidence either way; NO_MEMBER_REACHABLE says so instead.
  if (!input.anyReachable) return result([]);
  if (voting.length === 0) {
    return result([reason('MEMBERSHIP_UNKNOWN', 'members answered, but none listed the membership, so quorum cannot be counted')]);
  }
  const counts = `${healthy.length} of ${voting.length} voting members healthy, ${required} required`;
  if (confirmed) {
    if (marginKnown) return result([]);
    const unseen = voting.filter((m) => !m.readPassed);
    return result([
      reason(
        'QUORUM_MARGIN_UNKNOWN',
        `a read passed consensus through ${names(healthy)}, so a leader holds a quorum, but etcd-probe saw only ${counts}: ` +
          `${names(unseen)} did not answer it or failed the read, so how many more members may fail is unknown`,
      ),
    ]);
  }
  const last = input.memory.lastLeader ? ` (the last leader was ${label(input.memory.lastLeader)})` : '';
  if (answering < required) {
    return result([
      reason(
        'QUORUM_LOST',
        `only ${answering} of ${voting.length} voting members answer etcd-probe (${required} needed for a quorum) and no read passed consensus${last}`,
      ),
    ]);
  }
  const leaderless = input.now - leaderlessSince(input.memory, input.now);
  const state = electionState(input, answering, voting.length);
  if (leaderless > input.electionGraceMs) {
    return result([
      reason(
        'QUORUM_LOST',
        `no leader for ${seconds(leaderless)}, longer than the election grace of ${seconds(input.electionGraceMs)}: ${state}. ` +
          'The members answer but cannot elect a leader: they cannot reach each other (a partition), or their disks or CPUs are too slow to hold one',
      ),
    ]);
  }
  return result([reason('NO_LEADER', `${state} (no leader confirmed for ${seconds(leaderless)}; QUORUM_LOST after ${seconds(input.electionGraceMs)})`)]);
}
