import type { DisruptionBudget, MemberDisruption, Projection } from '../probe/disruption.ts';
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
export function disruptionDocument(snapshot: Snapshot, budget: DisruptionBudget) {
  return {
    disruptionsAllowed: budget.disruptionsAllowed,
    status: snapshot.verdict.status,
    quorum: snapshot.verdict.quorum,
    ...freshness(snapshot),
    members: budget.members.map(memberDisruptionDocument),
  };
}
