import { label, reason, type Reason } from '../reason.ts';
import type { MemberState, ObservedRound, RoundRecord } from './round-record.ts';
import { leaderChanged, lostQuorum } from './transitions.ts';

/** The limits of the checks that read recent rounds: HISTORY_THRESHOLDS, tests excepted. */
export interface HistoryThresholds {
  /** FREQUENT_LEADER_CHANGES at this many elections or more within leaderChangesWindowMs. */
  readonly leaderChangesMax: number;
  readonly leaderChangesWindowMs: number;
  /** MEMBER_FLAPPING at this many state changes or more within flapWindowMs. */
  readonly flapChangesMax: number;
  readonly flapWindowMs: number;
  /** MEMBER_STALLED when a member's applied index stays put over this many rounds while the leader's moves. */
  readonly stallRounds: number;
}

/**
 * FREQUENT_LEADER_CHANGES at 4 elections within 15 minutes: the etcd monitoring mixin's
 * etcdHighNumberOfLeaderChanges (`increase(etcd_server_leader_changes_seen_total[15m]) >= 4`), so that this
 * verdict and the alert an operator already runs agree. A convention, not a tuning knob.
 */
export const LEADER_CHANGES_MAX = 4;
/** The window of LEADER_CHANGES_MAX: the mixin's 15 minutes. */
export const LEADER_CHANGES_WINDOW_MS = 15 * 60_000;
/**
 * MEMBER_FLAPPING at 4 state changes within 10 minutes: a restart is 2 changes (down, up), so 4 is a member
 * that went down twice, the least that is a pattern rather than one event, and 10 minutes keeps it within
 * the leader-change window so both reasons speak of the same recent past.
 */
export const FLAP_CHANGES_MAX = 4;
/** The window of FLAP_CHANGES_MAX. */
export const FLAP_WINDOW_MS = 10 * 60_000;
/**
 * MEMBER_STALLED after 3 rounds with the applied index put (and MIN_STALL_SPAN_MS): two rounds can catch a
 * healthy follower between the leader's commit and its own apply; a third unchanged one cannot.
 */
export const STALL_ROUNDS = 3;

/** The limits the history checks judge by. */
export const HISTORY_THRESHOLDS: HistoryThresholds = Object.freeze({
  leaderChangesMax: LEADER_CHANGES_MAX,
  leaderChangesWindowMs: LEADER_CHANGES_WINDOW_MS,
  flapChangesMax: FLAP_CHANGES_MAX,
  flapWindowMs: FLAP_WINDOW_MS,
  stallRounds: STALL_ROUNDS,
});

type Round = ObservedRound | RoundRecord;

/**
 * MEMBER_STALLED also needs its rounds to span this long: back-to-back rounds (a TTL of 0) come faster
 * than a healthy follower applies the leader's newest entries, so rounds alone would cry wolf.
 */
export const MIN_STALL_SPAN_MS = 10_000;

function minutes(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`;
}

function clock(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}

/**
 * Calls `visit` with the rounds within `windowMs` before the current one, in time order, then with the
 * current one. The history is in time order, so the window is found from its end: the cost is the rounds
 * in the window, not the whole history (a TTL of 0 keeps thousands of rounds, and this runs every round),
 * and no array is made of them.
 */
function eachInWindow(past: readonly RoundRecord[], current: ObservedRound, windowMs: number, visit: (round: Round) => void): void {
  const from = current.at - windowMs;
  let start = past.length;
  while (start > 0 && (past[start - 1] as RoundRecord).at >= from) start--;
  for (let i = start; i < past.length; i++) {
    const r = past[i] as RoundRecord;
    if (r.at < current.at) visit(r);
  }
  visit(current);
}

/** How many times a member's state changed within the window (rounds without it do not count), and its last `keep` states. */
function stateChanges(past: readonly RoundRecord[], current: ObservedRound, windowMs: number, id: string, keep: number): { changes: number; path: MemberState[] } {
  const path: MemberState[] = [];
  let previous: MemberState | null = null;
  let changes = 0;
  eachInWindow(past, current, windowMs, (r) => {
    let state: MemberState | undefined;
    for (const m of r.members) {
      if (m.id === id) {
        state = m.state;
        break;
      }
    }
    if (state === undefined || state === previous) return;
    if (previous !== null) changes++;
    previous = state;
    path.push(state);
    if (path.length > keep) path.shift();
  });
  return { changes, path };
}

/**
 * FREQUENT_LEADER_CHANGES: changes of leader within the window. A term jump under the same leader is not
 * one, and a change that ended a lost quorum is not counted: QUORUM_LOST reported that outage, and the
 * election that ended it says nothing about disks or the network.
 */
export function judgeLeaderChanges(past: readonly RoundRecord[], current: ObservedRound, t: HistoryThresholds): Reason[] {
  const changes: string[] = [];
  let elections = 0;
  let before: Round | null = null;
  let quorumLost = false;
  eachInWindow(past, current, t.leaderChangesWindowMs, (after) => {
    if (after.leader === null) {
      if ('status' in after && lostQuorum(after)) quorumLost = true;
      return;
    }
    if (before !== null && !quorumLost && leaderChanged(before, after)) {
      elections++;
      changes.push(`${clock(after.at)} ${before.leader ? label(before.leader) : '?'} → ${label(after.leader)}`);
    }
    before = after;
    quorumLost = false;
  });
  if (elections < t.leaderChangesMax) return [];
  return [
    reason(
      'FREQUENT_LEADER_CHANGES',
      `${elections} leader elections in the last ${minutes(t.leaderChangesWindowMs)} (${t.leaderChangesMax} or more is frequent): ${changes.slice(-6).join('; ')}`,
    ),
  ];
}

/** MEMBER_FLAPPING: members whose state changed too often within the window. */
export function judgeFlapping(past: readonly RoundRecord[], current: ObservedRound, t: HistoryThresholds): Reason[] {
  const reasons: Reason[] = [];
  for (const m of current.members) {
    const { changes, path } = stateChanges(past, current, t.flapWindowMs, m.id, 8);
    if (changes < t.flapChangesMax) continue;
    reasons.push(
      reason('MEMBER_FLAPPING', `${label(m)} changed state ${changes} times in the last ${minutes(t.flapWindowMs)} (${path.join(' → ')})`, {
        member: m,
      }),
    );
  }
  return reasons;
}

/** MEMBER_STALLED: a member whose applied index did not move over the last rounds while the leader's did. */
export function judgeStalls(past: readonly RoundRecord[], current: ObservedRound, t: HistoryThresholds): Reason[] {
  const leader = current.leader;
  if (!leader || t.stallRounds < 2) return [];
  const span = [...past.slice(-(t.stallRounds - 1)), current];
  if (span.length < t.stallRounds) return [];
  const appliedOf = (r: Round, id: string) => r.members.find((m) => m.id === id)?.applied ?? null;
  const first = span[0] as Round;
  if (current.at - first.at < MIN_STALL_SPAN_MS) return [];
  const leaderFrom = appliedOf(first, leader.id);
  const leaderTo = appliedOf(current, leader.id);
  if (leaderFrom === null || leaderTo === null || leaderTo <= leaderFrom) return [];
  const reasons: Reason[] = [];
  for (const m of current.members) {
    if (m.id === leader.id || m.applied === null) continue;
    const applied = span.map((r) => appliedOf(r, m.id));
    if (!applied.every((a) => a === m.applied)) continue;
    reasons.push(
      reason(
        'MEMBER_STALLED',
        `${label(m)}'s applied index stayed at ${m.applied} over the last ${t.stallRounds} rounds (${Math.round((current.at - first.at) / 100) / 10}s) while the leader ${label(leader)}'s went from ${leaderFrom} to ${leaderTo}`,
        { member: m },
      ),
    );
  }
  return reasons;
}

/** Every finding that needs recent rounds: frequent elections, flapping members, stalled members. Pure. */
export function judgeHistory(past: readonly RoundRecord[], current: ObservedRound, t: HistoryThresholds): Reason[] {
  return [...judgeLeaderChanges(past, current, t), ...judgeFlapping(past, current, t), ...judgeStalls(past, current, t)];
}
