import type { MemberView } from './cluster-view.ts';
import type { ReasonCode } from './reason-catalogue.ts';
import { label, type Reason } from './reason.ts';
import type { Verdict } from './verdict.ts';

// "Is this member fit to serve clients?" — the question a load balancer asks per backend server (HAProxy
// in front of etcd members, or of stacked control-plane nodes whose kube-apiserver talks to its local
// member only). The cluster's verdict answers for all members at once; taking every server out at once
// helps nobody, so this answers per member, from the same round. docs/http-api.md states the rules.

/** Reasons that leave no member able to serve: every member is unfit, under both policies. */
const CLUSTER_DOWN: ReadonlySet<ReasonCode> = new Set(['NO_MEMBER_REACHABLE', 'QUORUM_LOST']);

/**
 * Reasons that name a member but concern the whole cluster: NOSPACE blocks writes on every member alike
 * (etcd applies the alarm cluster-wide), so no server is better than another; under `strict` they make
 * every member unfit, as they make the cluster's answer 503.
 */
const CLUSTER_WIDE: ReadonlySet<ReasonCode> = new Set(['ALARM_NOSPACE']);

/** Reasons about a member that make it unfit under the quorum policy: it cannot serve, or serves stale data. */
const MEMBER_UNFIT: ReadonlySet<ReasonCode> = new Set([
  'MEMBER_UNREACHABLE',
  'MEMBER_UNHEALTHY',
  'MEMBER_NOT_PROBED',
  'MEMBER_ID_MISMATCH',
  'UNSTARTED_MEMBER',
  'MEMBER_BEHIND',
  'RAFT_APPLY_LAG',
  'MEMBER_STALLED',
  'ALARM_CORRUPT',
]);

/** What a load balancer learns of one member: fit or not, why in a sentence, and the reasons that decided it. */
export interface MemberFitness {
  readonly fit: boolean;
  readonly why: string;
  /** The reasons about this member, and those about the cluster that concern every member; most severe first. */
  readonly reasons: readonly Reason[];
}

function concerns(r: Reason, member: MemberView): boolean {
  return r.member === null || r.member.id === member.id || CLUSTER_WIDE.has(r.code) || CLUSTER_DOWN.has(r.code);
}

/**
 * Whether `member` is fit to serve clients under `policy`, judged from a round's verdict. Pure.
 *
 * quorum: unfit when the cluster has no quorum (every member), when the member is unreachable, a learner,
 * cut off from a leader (its linearizable read failed while the others' passed), far behind or stalled, or
 * raised CORRUPT. A read that failed because the whole cluster is electing a leader (NO_LEADER) does not
 * count: every member waits for the same election, and etcd's clients ride it out. NOSPACE does not either:
 * it blocks writes on every member alike.
 * strict: fit under quorum, and no degraded or unhealthy reason about this member or the whole cluster
 * (another member's trouble is not this member's).
 */
export function memberFitness(verdict: Verdict, member: MemberView, policy: 'quorum' | 'strict'): MemberFitness {
  const reasons = verdict.reasons.filter((r) => concerns(r, member));
  const down = reasons.find((r) => CLUSTER_DOWN.has(r.code));
  const name = label(member);
  if (down) return { fit: false, why: `the cluster cannot serve (${down.code}): no member is fit`, reasons };
  const election = verdict.reasons.some((r) => r.code === 'NO_LEADER');
  const unfitBy = (why: string): MemberFitness => ({ fit: false, why: `${name} ${why}`, reasons });
  if (!member.reachable) return unfitBy('did not answer this round');
  if (member.isLearner) return unfitBy('is a learner: it serves no client requests until it is promoted');
  if (!member.readPassed && !election) return unfitBy('answers, but its linearizable read failed: it cannot reach a leader with a quorum');
  const own = reasons.find((r) => r.member?.id === member.id && MEMBER_UNFIT.has(r.code));
  if (own) return unfitBy(`cannot serve as it should (${own.code})`);
  if (policy === 'strict') {
    const any = reasons.find((r) => r.severity !== 'info');
    if (any) return { fit: false, why: `not fit under the strict policy: ${any.code}`, reasons };
  }
  const during = election ? ', while the cluster elects a leader (as every member is)' : '';
  return { fit: true, why: `${name} serves clients${during}`, reasons };
}
