import type { ClusterView, EndpointView, MemberView } from './cluster-view.ts';
import { normalizeEndpoint } from './endpoint-url.ts';
import type { HealthStatus } from './health-status.ts';
import type { Thresholds } from './member-checks.ts';
import { probeError } from './outcome.ts';
import type { QuorumFacts } from './quorum.ts';
import { label, reason, type MemberRef, type Reason } from './reason.ts';
import { reasonOrder } from './reason-order.ts';
import { judge, type Verdict } from './verdict.ts';

/** What may be done to a member: `stop` (it goes down, the membership stays) or `remove` (it leaves the membership). */
export type DisruptionAction = 'stop' | 'remove';

/** The actions, for parsing and documentation. */
export const DISRUPTION_ACTIONS: readonly DisruptionAction[] = ['stop', 'remove'];

/** The cluster as it would settle after one action: whether it keeps quorum, and the verdict it would have. */
export interface Projection {
  /** The cluster keeps a quorum afterwards (and had a confirmed one before). */
  readonly safe: boolean;
  readonly after: { readonly status: HealthStatus; readonly quorum: QuorumFacts };
  readonly reasons: readonly Reason[];
}

/** Both answers for one member. */
export interface MemberDisruption {
  readonly member: MemberRef;
  readonly stop: Projection;
  readonly remove: Projection;
}

/**
 * How many voting members could stop now without losing quorum: the fault tolerance of a confirmed quorum,
 * never negative, and 0 when quorum is lost or its margin unknown (members etcd-probe cannot see).
 */
export function disruptionsAllowed(verdict: Pick<Verdict, 'quorum'>): number {
  return verdict.quorum.confirmed ? verdict.quorum.faultTolerance : 0;
}

const STOPPED = probeError('CONNECTION_REFUSED', 'stopped (a projection, not an observation)');

function down(m: MemberView): MemberView {
  return { ...m, reachable: false, healthy: false, readPassed: false, readTerm: null, status: null, error: STOPPED, latencyMs: null };
}

function withoutLeader(m: MemberView, leaderId: string): MemberView {
  return m.status?.leaderId === leaderId ? { ...m, status: { ...m.status, leaderId: null } } : m;
}

/**
 * The view after the action, as the cluster would settle: the member down (or gone from the membership),
 * the others' reads failing when fewer than a quorum of the (new) voting members stay healthy, and no
 * member following a leader that went away (the next one is not known yet).
 */
function projectedView(view: ClusterView, target: MemberView, action: DisruptionAction): ClusterView {
  let members = action === 'stop' ? view.members.map((m) => (m.id === target.id ? down(m) : m)) : view.members.filter((m) => m.id !== target.id);
  members = members.map((m) => withoutLeader(m, target.id));
  const voting = members.filter((m) => m.listed && !m.isLearner);
  const required = Math.floor(voting.length / 2) + 1;
  if (voting.filter((m) => m.readPassed).length < required) {
    members = members.map((m) => (m.readPassed ? { ...m, readPassed: false, readTerm: null, healthy: m.isLearner && m.reachable } : m));
  }
  const urls = new Set(target.clientURLs.map(normalizeEndpoint));
  // The target's endpoints: those that answered as it, and those that failed where it should answer.
  const isTarget = (e: EndpointView) =>
    e.memberId === target.id || (e.memberId === null && (e.endpoint === target.endpoint || urls.has(normalizeEndpoint(e.endpoint)) || (target.name !== '' && e.node === target.name)));
  const endpoints = view.endpoints.flatMap((e) => {
    if (!isTarget(e)) return [e];
    return action === 'remove' ? [] : [{ ...e, reachable: false, error: STOPPED }];
  });
  const reportedMemberships =
    action === 'remove'
      ? view.reportedMemberships.filter((r) => r.reporterId !== target.id).map((r) => ({ ...r, members: r.members.filter((l) => l.id !== target.id) }))
      : view.reportedMemberships;
  const alarms = action === 'remove' ? view.alarms.filter((a) => a.memberId !== target.id) : view.alarms;
  return { ...view, members, endpoints, reportedMemberships, alarms };
}

/** The verdict after one action on one member, judged by the same rules as a real round. Pure. */
export function project(view: ClusterView, verdict: Verdict, target: MemberView, action: DisruptionAction, thresholds: Thresholds, now: number): Projection {
  // The settled state, not its first seconds: without a read through consensus, a quorum is lost, not electing.
  const memory = { confirmedAt: now - thresholds.electionGraceMs - 1, unconfirmedSince: null, lastLeader: null };
  const after = judge(projectedView(view, target, action), thresholds, now, { memory, history: [] });
  const extra: Reason[] = [];
  if (verdict.leader?.id === target.id && after.quorum.confirmed) {
    extra.push(
      reason('LEADER_STOP_COSTS_ELECTION', `${label(target)} leads: to ${action} it costs an election, and writes pause until a new leader is elected`, {
        member: target,
      }),
    );
  }
  return {
    safe: verdict.quorum.confirmed && after.quorum.confirmed,
    after: { status: after.status, quorum: after.quorum },
    reasons: [...after.reasons, ...extra].sort(reasonOrder),
  };
}

/** How many members may stop, and for each member whether it may stop or leave. */
export interface DisruptionBudget {
  readonly disruptionsAllowed: number;
  readonly members: readonly MemberDisruption[];
}

/** The disruption budget of a round. Pure. */
export function disruptionBudget(view: ClusterView, verdict: Verdict, thresholds: Thresholds, now: number): DisruptionBudget {
  return {
    disruptionsAllowed: disruptionsAllowed(verdict),
    members: view.members
      .filter((m) => m.listed)
      .map((m) => ({
        member: { id: m.id, name: m.name },
        stop: project(view, verdict, m, 'stop', thresholds, now),
        remove: project(view, verdict, m, 'remove', thresholds, now),
      })),
  };
}
