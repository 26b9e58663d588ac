import type { MemberView } from './cluster-view.ts';
import { label, type MemberRef } from './reason.ts';

/** Who the members that answered Status follow, as they report it; not yet a judgement. */
export interface Leadership {
  /** The leader named at the highest raft term; null when no member that answered names one. */
  readonly named: MemberRef | null;
  /** The raft term of the members naming it. */
  readonly term: number;
  /** The named leader answered Status this round and names itself: it is alive, not merely remembered. */
  readonly selfConfirmed: boolean;
  /** The members that answered and name it, by name. */
  readonly followers: readonly string[];
  /** How the members split when they do not all follow the named leader; null when they agree. */
  readonly split: string | null;
  /**
   * The leader the members named, when a read was served at a later term: their Status predates an
   * election that ended during the round, so that leader is not named (`named` is null).
   */
  readonly superseded: MemberRef | null;
}

function termOf(members: readonly MemberView[]): number {
  return Math.max(...members.map((m) => m.status?.raftTerm ?? 0));
}

/**
 * Reads who leads from the members' own Status. The leader named at the highest term is the current
 * one (a stale member still names an older leader); whether that leader can serve is for the quorum
 * rules to decide, from whether any read passed.
 */
export function readLeadership(members: readonly MemberView[]): Leadership {
  const reporters = members.filter((m) => m.status !== null);
  const byLeader = new Map<string | null, MemberView[]>();
  for (const m of reporters) {
    const id = m.status?.leaderId ?? null;
    byLeader.set(id, [...(byLeader.get(id) ?? []), m]);
  }
  const followed = [...byLeader.entries()].filter((entry): entry is [string, MemberView[]] => entry[0] !== null);
  const best = [...followed].sort((a, b) => termOf(b[1]) - termOf(a[1]) || b[1].length - a[1].length)[0];
  if (!best) return { named: null, term: 0, selfConfirmed: false, followers: [], split: null, superseded: null };
  const [leaderId, followers] = best;
  const leaderView = members.find((m) => m.id === leaderId);
  const ref = { id: leaderId, name: leaderView?.name ?? '' };
  // Status and the read are asked in parallel: a read served at a later term than every claim proves that
  // the claims are older than an election that ended meanwhile (the old leader may be dead).
  const readTerm = Math.max(0, ...members.map((m) => m.readTerm ?? 0));
  if (readTerm > termOf(followers)) return { named: null, term: readTerm, selfConfirmed: false, followers: [], split: null, superseded: ref };
  const split =
    byLeader.size === 1
      ? null
      : [...byLeader.entries()]
          .map(([id, ms]) => {
            const who = ms.map(label).join(', ');
            if (id === null) return `${who} ${ms.length === 1 ? 'knows' : 'know'} no leader`;
            const named = members.find((m) => m.id === id);
            return `${who} ${ms.length === 1 ? 'follows' : 'follow'} ${named ? label(named) : id} (term ${termOf(ms)})`;
          })
          .join('; ');
  return {
    named: ref,
    term: termOf(followers),
    selfConfirmed: leaderView?.status?.leaderId === leaderId,
    followers: followers.map(label),
    split,
    superseded: null,
  };
}
