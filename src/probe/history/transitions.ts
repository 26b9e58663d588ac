import type { ProbeErrorCode } from '../outcome.ts';
import type { MemberRef } from '../reason.ts';
import type { HealthStatus } from '../health-status.ts';
import type { MemberState, RoundRecord } from './round-record.ts';

/** Something that changed between two rounds, as `/history` lists it (time order) and metrics count it. */
export type Transition =
  | { readonly kind: 'verdict'; readonly at: number; readonly from: HealthStatus; readonly to: HealthStatus }
  | {
      readonly kind: 'member';
      readonly at: number;
      readonly member: MemberRef;
      readonly from: MemberState;
      readonly to: MemberState;
      /** Why it is not healthy now, when it is not. */
      readonly code: ProbeErrorCode | null;
    }
  | {
      readonly kind: 'leader';
      readonly at: number;
      readonly from: MemberRef;
      readonly to: MemberRef;
      readonly fromTerm: number;
      readonly toTerm: number;
      /**
       * Elections this change counts for FREQUENT_LEADER_CHANGES: 1, or 0 when quorum was lost between
       * the two leaders (the election ended an outage that QUORUM_LOST already reported).
       */
      readonly elections: 0 | 1;
      /** A round between the two leaders had no quorum (QUORUM_LOST or no member reachable). */
      readonly afterQuorumLoss: boolean;
    }
  | {
      /**
       * The same leader in a higher raft term: failed campaigns (etcd 3.4 has no pre-vote) or a leader
       * lost and regained between rounds. Not a change of leader, so not counted as an election.
       */
      readonly kind: 'term';
      readonly at: number;
      readonly leader: MemberRef;
      readonly fromTerm: number;
      readonly toTerm: number;
    }
  | { readonly kind: 'alarm'; readonly at: number; readonly member: MemberRef; readonly alarm: string; readonly change: 'raised' | 'cleared' };

function ref(records: readonly RoundRecord[], id: string): MemberRef {
  for (let i = records.length - 1; i >= 0; i--) {
    const m = records[i]?.members.find((x) => x.id === id);
    if (m) return { id, name: m.name };
  }
  return { id, name: '' };
}

/**
 * A leader change between two rounds that both confirmed a leader is a change of leader, nothing else: a
 * term jump under the same leader shows campaigns, not a new leader (etcd 3.4's lone survivor of a lost
 * quorum raises the term every election timeout), and counting it made elections that never happened.
 */
export function leaderChanged(before: Pick<RoundRecord, 'leader'>, after: Pick<RoundRecord, 'leader'>): boolean {
  return !!before.leader && !!after.leader && before.leader.id !== after.leader.id;
}

/** A round without quorum, as its verdict said: no read passed and the verdict was unhealthy (QUORUM_LOST, NO_MEMBER_REACHABLE). */
export function lostQuorum(record: Pick<RoundRecord, 'confirmed' | 'status'>): boolean {
  return !record.confirmed && record.status === 'unhealthy';
}

/**
 * What changed from `before` to `after`. `lastLed` is the latest earlier round with a confirmed leader,
 * since rounds without one (an election) sit between the two leaders; `quorumLostSince` says whether a
 * round after `lastLed` had no quorum. Pure.
 */
export function transitionsBetween(before: RoundRecord | null, after: RoundRecord, lastLed: RoundRecord | null, quorumLostSince = false): Transition[] {
  const out: Transition[] = [];
  const at = after.at;
  if (before && before.status !== after.status) out.push({ kind: 'verdict', at, from: before.status, to: after.status });
  if (before) {
    for (const m of after.members) {
      const was = before.members.find((x) => x.id === m.id);
      if (was && was.state !== m.state) out.push({ kind: 'member', at, member: { id: m.id, name: m.name }, from: was.state, to: m.state, code: m.failure });
    }
  }
  if (lastLed?.leader && after.leader && lastLed.term !== null && after.term !== null) {
    if (leaderChanged(lastLed, after)) {
      const afterQuorumLoss = quorumLostSince;
      out.push({ kind: 'leader', at, from: lastLed.leader, to: after.leader, fromTerm: lastLed.term, toTerm: after.term, elections: afterQuorumLoss ? 0 : 1, afterQuorumLoss });
    } else if (after.term > lastLed.term) {
      out.push({ kind: 'term', at, leader: after.leader, fromTerm: lastLed.term, toTerm: after.term });
    }
  }
  if (before) {
    const records = [before, after];
    for (const a of after.alarms) if (!before.alarms.includes(a)) out.push(alarmChange(records, at, a, 'raised'));
    for (const a of before.alarms) if (!after.alarms.includes(a)) out.push(alarmChange(records, at, a, 'cleared'));
  }
  return out;
}

function alarmChange(records: readonly RoundRecord[], at: number, key: string, change: 'raised' | 'cleared'): Transition {
  const [id = '', alarm = ''] = key.split(':');
  return { kind: 'alarm', at, member: ref(records, id), alarm, change };
}
