import type { QuorumFacts } from './quorum.ts';
import type { ReasonCode } from './reason-catalogue.ts';

/** What the sentence reads: the quorum facts and the reason codes of one verdict (or its document). */
export interface QuorumEvidence {
  readonly quorum: QuorumFacts;
  readonly reasons: readonly { readonly code: ReasonCode }[];
}

function learnersNote(q: QuorumFacts): string {
  const learners = q.members - q.voting;
  if (learners === 0) return '';
  return learners === 1 ? ' (plus 1 learner, which does not vote)' : ` (plus ${learners} learners, which do not vote)`;
}

/**
 * Quorum in one sentence, the same on the status page, in `?verbose` and in `etcd-probe check`:
 * "2 of 3 voting members healthy, can lose 0 more". Where the round has no evidence (nothing answered,
 * no membership, no read through consensus) it says so rather than counting zeros.
 */
export function quorumSentence(evidence: QuorumEvidence): string {
  const q = evidence.quorum;
  const has = (code: ReasonCode) => evidence.reasons.some((r) => r.code === code);
  if (has('NO_MEMBER_REACHABLE')) return 'No member answered, so quorum is unknown';
  if (q.voting === 0) return 'The membership is unknown, so quorum cannot be counted';
  const plus = learnersNote(q);
  const answering = `${q.answering} of ${q.voting} voting members answer, ${q.required} needed`;
  if (has('QUORUM_LOST')) return `${answering}: quorum lost${plus}`;
  if (!q.confirmed) return `${answering}, but no read passed consensus: no leader confirmed yet${plus}`;
  const counted = `${q.healthyVoting} of ${q.voting} voting members healthy`;
  // Members this probe could not reach may still vote: a read proved quorum, so a short count is "unknown", not "lost".
  if (q.healthyVoting < q.required) return `${counted}, ${q.required} needed: a read passed consensus, the others could not be checked${plus}`;
  return `${counted}, can lose ${q.faultTolerance} more${plus}`;
}
