import type { MemberView } from './cluster-view.ts';
import { label, reason, type MemberRef, type Reason } from './reason.ts';

/** Who leads, by the reachable members' own reports, and whether they agree. */
export function judgeLeader(members: readonly MemberView[]): { leader: MemberRef | null; reasons: Reason[] } {
  const reporters = members.filter((m) => m.status !== null);
  if (reporters.length === 0) return { leader: null, reasons: [] };
  const byLeader = new Map<string | null, MemberView[]>();
  for (const m of reporters) {
    const id = m.status?.leaderId ?? null;
    byLeader.set(id, [...(byLeader.get(id) ?? []), m]);
  }
  const followed = [...byLeader.entries()].filter(([id]) => id !== null) as [string, MemberView[]][];
  if (followed.length === 0) {
    return {
      leader: null,
      reasons: [reason('NO_LEADER', `none of the ${reporters.length} reachable members knows a leader`)],
    };
  }
  // The leader of the highest term is the current one; a stale follower still names an older leader.
  const termOf = ([, ms]: [string, MemberView[]]) => Math.max(...ms.map((m) => m.status?.raftTerm ?? 0));
  const [leaderId] = [...followed].sort((a, b) => termOf(b) - termOf(a) || b[1].length - a[1].length)[0] as [string, MemberView[]];
  const leaderMember = members.find((m) => m.id === leaderId);
  const leader = { id: leaderId, name: leaderMember?.name ?? '' };
  if (byLeader.size === 1) return { leader, reasons: [] };
  const describe = [...byLeader.entries()].map(([id, ms]) => {
    const who = ms.map(label).join(', ');
    if (id === null) return `${who} ${ms.length === 1 ? 'knows' : 'know'} no leader`;
    const named = members.find((m) => m.id === id);
    return `${who} ${ms.length === 1 ? 'follows' : 'follow'} ${named ? label(named) : id} (term ${termOf([id, ms])})`;
  });
  return { leader, reasons: [reason('LEADER_DISAGREEMENT', `members disagree on the leader: ${describe.join('; ')}`)] };
}
