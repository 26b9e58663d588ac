import type { KvHash } from '../observations.ts';
import type { Outcome } from '../outcome.ts';

// The divergence check's judgement, pure: which members' HashKV at one pinned revision differ from the
// majority. It follows etcd's own corruption check (server/etcdserver/corrupt.go): hashes are compared
// only between members that hashed the same revision from the same compact revision, since a compaction
// in between changes the hash without any divergence (etcd PR #14510 is the false alarm otherwise).

/** How one member came out of one comparison. */
export type MemberDataState = 'agrees' | 'diverged' | 'undecided' | 'not-compared';

/** How a whole comparison came out; `not-compared` and `partial` are never "consistent". */
export type DataOutcome = 'consistent' | 'partial' | 'diverged' | 'not-compared';

/** One member's part of a comparison. */
export interface MemberDataResult {
  readonly memberId: string;
  readonly state: MemberDataState;
  /** Its HashKV hash (decimal), when it answered. */
  readonly hash: string | null;
  /** Its compact revision when hashing began (decimal), when it answered. */
  readonly compactRevision: string | null;
  /** Why it was not compared, in words. */
  readonly why: string | null;
}

/** One comparison: the pinned revision, when it ran, every member's part, and the outcome. */
export interface DataComparison {
  /** The revision hashed (decimal), or null when none could be picked. */
  readonly revision: string | null;
  /** When the comparison finished, in ms since the epoch. */
  readonly at: number;
  readonly outcome: DataOutcome;
  readonly members: readonly MemberDataResult[];
}

/** One member's current revision (from Status), or null when it did not answer. */
export interface MemberRevision {
  readonly memberId: string;
  readonly revision: string | null;
}

/**
 * The revision to hash: the lowest current revision among the members that answered, so that every one
 * of them has applied it. Null when none answered or the store is empty (revision 1 holds no key).
 */
export function pickRevision(members: readonly MemberRevision[]): string | null {
  let lowest: bigint | null = null;
  for (const { revision } of members) {
    if (revision === null) continue;
    const value = BigInt(revision);
    if (lowest === null || value < lowest) lowest = value;
  }
  return lowest === null || lowest < 2n ? null : String(lowest);
}

/** One member's HashKV answer at the pinned revision. */
export interface MemberHash {
  readonly memberId: string;
  readonly outcome: Outcome<KvHash> | null;
}

/** Why a member could not be compared: its call's error, or that it was not asked. */
function notCompared(memberId: string, why: string, answer?: KvHash): MemberDataResult {
  return { memberId, state: 'not-compared', hash: answer?.hash ?? null, compactRevision: answer?.compactRevision ?? null, why };
}

/** The compact revision shared by most answers (the highest among equally many), the group compared. */
function mainCompactRevision(answers: readonly KvHash[]): string | null {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(a.compactRevision, (counts.get(a.compactRevision) ?? 0) + 1);
  let best: string | null = null;
  for (const [compact, count] of counts) {
    const bestCount = best === null ? 0 : (counts.get(best) as number);
    if (count > bestCount || (count === bestCount && best !== null && BigInt(compact) > BigInt(best))) best = compact;
  }
  return best;
}

/**
 * Compares the members' hashes at `revision`. Members with an error, or that hashed from another compact
 * revision than most, are `not-compared`. Among the rest, a hash held by more than half is the reference
 * and every other member `diverged`; with no such majority (1 against 1) the mismatch is real but nobody
 * can be named, so all of them are `undecided` and the outcome is `diverged`. Fewer than two compared
 * members is `not-compared`; all members compared and equal is `consistent`; equal but some not compared is `partial`.
 */
export function compareHashes(revision: string | null, hashes: readonly MemberHash[], at: number): DataComparison {
  if (revision === null) {
    return { revision, at, outcome: 'not-compared', members: hashes.map((h) => notCompared(h.memberId, 'no revision every member has applied could be picked (no member answered Status, or the store holds no key)')) };
  }
  const answered = hashes.flatMap((h) => (h.outcome?.ok ? [h.outcome.value] : []));
  const compact = mainCompactRevision(answered);
  const group = hashes.filter((h) => h.outcome?.ok && h.outcome.value.compactRevision === compact);
  const counts = new Map<string, number>();
  for (const h of group) if (h.outcome?.ok) counts.set(h.outcome.value.hash, (counts.get(h.outcome.value.hash) ?? 0) + 1);
  const majority = [...counts].find(([, count]) => count * 2 > group.length)?.[0] ?? null;
  const members = hashes.map((h): MemberDataResult => {
    if (h.outcome === null) return notCompared(h.memberId, 'not asked: it did not answer Status');
    if (!h.outcome.ok) return notCompared(h.memberId, `HashKV failed: ${h.outcome.error.message}`);
    const answer = h.outcome.value;
    if (answer.compactRevision !== compact) {
      return notCompared(h.memberId, `hashed from compact revision ${answer.compactRevision}, the others from ${compact}: hashes differ by compaction alone`, answer);
    }
    const state: MemberDataState = group.length < 2 ? 'not-compared' : majority === null ? 'undecided' : answer.hash === majority ? 'agrees' : 'diverged';
    return { memberId: h.memberId, state, hash: answer.hash, compactRevision: answer.compactRevision, why: state === 'not-compared' ? 'no other member to compare with' : null };
  });
  const outcome: DataOutcome =
    group.length < 2 ? 'not-compared' : counts.size > 1 ? 'diverged' : members.every((m) => m.state === 'agrees') ? 'consistent' : 'partial';
  return { revision, at, outcome, members };
}

/**
 * The members reported as diverged: diverged in this comparison and in the one before, at different
 * revisions or not, so that one odd answer (a member restarting mid-hash) never raises the reason alone.
 */
export function confirmedDiverged(previous: DataComparison | null, current: DataComparison): readonly string[] {
  if (previous === null) return [];
  const before = new Set(previous.members.filter((m) => m.state === 'diverged').map((m) => m.memberId));
  return current.members.filter((m) => m.state === 'diverged' && before.has(m.memberId)).map((m) => m.memberId);
}
