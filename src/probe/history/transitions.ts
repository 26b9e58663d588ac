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
       * Elections between the two rounds: the raft term's increase, at least 1 when the leader changed.
       * More than the rounds saw when the term jumped (a leader lost and regained between rounds).
       */
      readonly elections: number;
    }
  | { readonly kind: 'alarm'; readonly at: number; readonly member: MemberRef; readonly alarm: string; readonly change: 'raised' | 'cleared' };

function ref(records: readonly RoundRecord[], id: string): MemberRef {
  for (let i = records.length - 1; i >= 0; i--) {
    const m = records[i]?.members.find((x) => x.id === id);
    if (m) return { id, name: m.name };
  }
  return { id, name: '' };
}

/** Elections between two rounds that both confirmed a leader: term increase, at least 1 for a new leader. */
export function electionsBetween(before: Pick<RoundRecord, 'leader' | 'term'>, after: Pick<RoundRecord, 'leader' | 'term'>): number {
  if (!before.leader || !after.leader || before.term === null || after.term === null) return 0;
  const termJump = Math.max(0, after.term - before.term);
  return after.leader.id !== before.leader.id ? Math.max(1, termJump) : termJump;
}

/**
 * What changed from `before` to `after`. `lastLed` is the latest earlier round with a confirmed leader,
 * since rounds without one (an election) sit between the two leaders. Pure.
 */
export function transitionsBetween(before: RoundRecord | null, after: RoundRecord, lastLed: RoundRecord | null): Transition[] {
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
    const elections = electionsBetween(lastLed, after);
    if (elections > 0) {
      out.push({ kind: 'leader', at, from: lastLed.leader, to: after.leader, fromTerm: lastLed.term, toTerm: after.term, elections });
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
