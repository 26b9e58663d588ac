import type { MemberClient } from '../member-client.ts';
import { probeError } from '../outcome.ts';
import { compareHashes, pickRevision, type DataComparison, type MemberHash } from './compare-hashes.ts';

/** A member to compare, by its hex ID, and the client that reaches it. */
export interface DataCheckMember {
  readonly memberId: string;
  readonly client: MemberClient;
}

/**
 * One comparison: every member's Status (for its current revision) in parallel, the lowest revision
 * pinned, then every member's HashKV at it in parallel, each within `timeoutMs`. Read-only; never throws.
 */
export async function runDataCheck(members: readonly DataCheckMember[], timeoutMs: number, now: () => number): Promise<DataComparison> {
  const comparison = await compareOnce(members, timeoutMs, now);
  // A compaction that lands between pinning and hashing leaves members on different compact revisions (or
  // compacted past the revision): pinning again at once compares them, as etcd's own check retries.
  return compactedBetween(comparison) ? compareOnce(members, timeoutMs, now) : comparison;
}

/** Whether a member was left out because of a compaction (not a failure that asking again would repeat). */
function compactedBetween(comparison: DataComparison): boolean {
  return comparison.members.some((m) => m.state === 'not-compared' && m.why !== null && /compact/.test(m.why));
}

async function compareOnce(members: readonly DataCheckMember[], timeoutMs: number, now: () => number): Promise<DataComparison> {
  const statuses = await Promise.all(members.map((m) => m.client.status()));
  const revisions = members.map((m, i) => {
    const status = statuses[i];
    return { memberId: m.memberId, revision: status?.ok && status.value.revision !== undefined ? status.value.revision : null };
  });
  const revision = pickRevision(revisions);
  const hashes: MemberHash[] = await Promise.all(
    members.map(async (m, i): Promise<MemberHash> => {
      if (revision === null || revisions[i]?.revision === null) return { memberId: m.memberId, outcome: null };
      if (!m.client.hashKv) return { memberId: m.memberId, outcome: { ok: false, error: probeError('ETCD_ERROR', 'this client cannot call HashKV'), ms: 0 } };
      return { memberId: m.memberId, outcome: await m.client.hashKv(revision, timeoutMs) };
    }),
  );
  return compareHashes(revision, hashes, now());
}
