import type { DataFindings } from '../probe/data-check/data-checks.ts';

/**
 * A member's part of the divergence check's last comparison, for `/members` and the status page: the
 * pinned revision, its hash and compact revision, when, how it came out for it and for the cluster, and
 * whether it is confirmed diverged. Null when the check is off or has not compared yet, or left the member out.
 */
export function memberDataCheck(findings: DataFindings | null | undefined, memberId: string) {
  if (!findings) return null;
  const { last } = findings;
  const own = last.members.find((m) => m.memberId === memberId);
  if (!own) return null;
  return {
    revision: last.revision,
    at: new Date(last.at).toISOString(),
    outcome: last.outcome,
    state: own.state,
    hash: own.hash,
    compactRevision: own.compactRevision,
    why: own.why,
    diverged: findings.diverged.includes(memberId),
  };
}
