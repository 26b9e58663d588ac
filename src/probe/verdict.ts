import type { Policy } from '../config/config.ts';
import { judgeAlarms, judgeClusterIds, judgeMembership, judgeReachability, judgeStrayEndpoints, judgeVersions } from './cluster-checks.ts';
import type { ClusterView } from './cluster-view.ts';
import { judgeKube, withoutEchoes } from './kube-checks.ts';
import { judgeLeader } from './leader.ts';
import { judgeMembers, type Thresholds } from './member-checks.ts';
import { judgeQuorum, type QuorumFacts } from './quorum.ts';
import type { Severity } from './reason-catalogue.ts';
import { label, type MemberRef, type Reason } from './reason.ts';

/** The cluster's health in one word. */
export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';

/** The judgement of one round. */
export interface Verdict {
  readonly status: HealthStatus;
  /** Most severe first. */
  readonly reasons: readonly Reason[];
  readonly quorum: QuorumFacts;
  readonly leader: MemberRef | null;
  readonly clusterId: string | null;
}

const SEVERITY_ORDER: Record<Severity, number> = { unhealthy: 0, degraded: 1, info: 2 };

function order(a: Reason, b: Reason): number {
  return (
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    a.code.localeCompare(b.code) ||
    (a.member ? label(a.member) : '').localeCompare(b.member ? label(b.member) : '')
  );
}

/**
 * Judges a round's view: a pure function of its inputs, with no I/O and no clock of its own (`now` is
 * passed for rules that weigh age). Unhealthy is a result here, never an exception.
 */
export function judge(view: ClusterView, thresholds: Thresholds, now: number): Verdict {
  const own = view.members;
  const unreachable = judgeReachability(view);
  const anyReachable = unreachable.length === 0;
  const { leader, reasons: leaderReasons } = judgeLeader(own);
  const { quorum, reasons: quorumReasons } = judgeQuorum(own, anyReachable);
  const found = [
    ...unreachable,
    ...judgeClusterIds(view),
    ...judgeStrayEndpoints(view),
    ...quorumReasons,
    ...leaderReasons,
    ...judgeAlarms(view),
    ...judgeMembership(view),
    ...judgeVersions(view),
    ...judgeMembers(own, leader, thresholds),
    ...judgeKube(view, thresholds.nodeGraceMs, now),
  ];
  const reasons = withoutEchoes(found, view).sort(order);
  const status: HealthStatus = reasons.some((r) => r.severity === 'unhealthy')
    ? 'unhealthy'
    : reasons.some((r) => r.severity === 'degraded')
      ? 'degraded'
      : 'healthy';
  return { status, reasons, quorum, leader, clusterId: view.clusterId };
}

/** The HTTP status `/healthz/etcd` answers: 503 when unhealthy, and when degraded under `strict`. */
export function httpStatusFor(status: HealthStatus, policy: Policy): 200 | 503 {
  if (status === 'unhealthy') return 503;
  if (status === 'degraded' && policy === 'strict') return 503;
  return 200;
}
