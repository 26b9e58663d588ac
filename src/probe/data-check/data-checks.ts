import type { MemberView } from '../cluster-view.ts';
import { label, reason, type Reason } from '../reason.ts';
import type { DataComparison } from './compare-hashes.ts';

/** What the divergence check has found so far: its last comparison and the members confirmed diverged. */
export interface DataFindings {
  readonly last: DataComparison;
  /** Hex IDs diverged in the last two comparisons. */
  readonly diverged: readonly string[];
  /** The last two comparisons both found hashes differing with no majority (nobody can be named). */
  readonly undecided: boolean;
}

/** The member of an ID, or a bare reference when the round does not know it. */
function memberOf(id: string, members: readonly MemberView[]): { id: string; name: string } {
  const member = members.find((m) => m.id === id);
  return { id, name: member?.name ?? '' };
}

/**
 * DATA_DIVERGED for each member confirmed diverged (or once, unnamed, for a mismatch without a majority),
 * DATA_NOT_COMPARED for each member the last comparison could not compare. Pure; nothing before the first comparison.
 */
export function judgeData(findings: DataFindings | null, members: readonly MemberView[]): Reason[] {
  if (findings === null) return [];
  const { last } = findings;
  const at = `revision ${last.revision}`;
  const reasons = findings.diverged.map((id) => {
    const member = memberOf(id, members);
    const own = last.members.find((m) => m.memberId === id);
    const majority = last.members.find((m) => m.state === 'agrees')?.hash ?? 'none';
    return reason('DATA_DIVERGED', `${label(member)}'s data differ from the other members': HashKV at ${at} is ${own?.hash ?? 'unknown'}, the majority's ${majority} (two comparisons in a row)`, { member });
  });
  if (findings.undecided) {
    reasons.push(reason('DATA_DIVERGED', `members' HashKV at ${at} differ with no majority to tell which one diverged (two comparisons in a row): ${last.members.filter((m) => m.state === 'undecided').map((m) => `${label(memberOf(m.memberId, members))} ${m.hash}`).join(', ')}`));
  }
  for (const m of last.members) {
    if (m.state !== 'not-compared') continue;
    const member = memberOf(m.memberId, members);
    reasons.push(reason('DATA_NOT_COMPARED', `${label(member)}'s data could not be compared at ${at}: ${m.why ?? 'no reason given'}`, { member }));
  }
  return reasons;
}

/** The findings after a new comparison, given the ones before it. */
export function nextFindings(previous: DataFindings | null, current: DataComparison): DataFindings {
  const before = previous?.last ?? null;
  const diverged = before === null ? [] : current.members.filter((m) => m.state === 'diverged' && before.members.some((b) => b.memberId === m.memberId && b.state === 'diverged')).map((m) => m.memberId);
  const undecided = before !== null && current.members.some((m) => m.state === 'undecided') && before.members.some((m) => m.state === 'undecided');
  return { last: current, diverged, undecided };
}
