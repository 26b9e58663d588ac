import type { DisruptionBudget, MemberDisruption, Projection } from '../probe/disruption.ts';
import type { CacheRead } from '../probe/round-cache.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import { freshness } from './documents.ts';

function projectionDocument(p: Projection) {
  return { safe: p.safe, after: p.after, reasons: p.reasons };
}

/** One member's two answers, as `/disruption` lists them. */
export function memberDisruptionDocument(m: MemberDisruption) {
  return { member: m.member, stop: projectionDocument(m.stop), remove: projectionDocument(m.remove) };
}

/** The `/disruption` document: the budget, and for each member whether it may stop or leave. */
export function disruptionDocument(read: CacheRead<Snapshot>, budget: DisruptionBudget, now: number) {
  return {
    disruptionsAllowed: budget.disruptionsAllowed,
    status: read.value.verdict.status,
    quorum: read.value.verdict.quorum,
    ...freshness(read, now),
    members: budget.members.map(memberDisruptionDocument),
  };
}
