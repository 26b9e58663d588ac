import type { HealthDoc } from './page-model.ts';

/**
 * Quorum in one sentence: "2 of 3 voting members healthy, can lose 0 more". Where the round has no
 * evidence (nothing answered, or no membership) it says so rather than counting zeros.
 */
export function quorumSentence(health: Pick<HealthDoc, 'quorum' | 'reasons'>): string {
  const q = health.quorum;
  if (health.reasons.some((r) => r.code === 'NO_MEMBER_REACHABLE')) return 'No member answered, so quorum is unknown';
  if (q.voting === 0) return 'The membership is unknown, so quorum cannot be counted';
  const counted = `${q.healthyVoting} of ${q.voting} voting members healthy`;
  const learners = q.members - q.voting;
  const plus = learners === 0 ? '' : learners === 1 ? ' (plus 1 learner, which does not vote)' : ` (plus ${learners} learners, which do not vote)`;
  if (health.reasons.some((r) => r.code === 'QUORUM_LOST')) return `${counted}, ${q.required} needed: quorum lost${plus}`;
  // Members this probe could not reach may still vote, so a short count is "unknown", not "lost".
  if (q.healthyVoting < q.required) return `${counted}, ${q.required} needed: the others could not be checked${plus}`;
  return `${counted}, can lose ${q.faultTolerance} more${plus}`;
}
