import { describe, expect, it } from 'vitest';
import { buildClusterView } from '../../src/probe/cluster-view.ts';
import type { RoundObservations } from '../../src/probe/observations.ts';
import { REASONS, type ReasonCode } from '../../src/probe/reason-catalogue.ts';
import { NO_MEMORY, type LeaderMemory } from '../../src/probe/leader-memory.ts';
import { judge, type Verdict } from '../../src/probe/verdict.ts';
import type { HealthStatus } from '../../src/probe/health-status.ts';
import type { RoundRecord } from '../../src/probe/history/round-record.ts';
import { rec } from './history/record-builders.ts';
import { TEST_THRESHOLDS } from './snapshot-builder.ts';
import { kubeFacts, listed, node, pod, round, three, type FakeMember } from './observation-builders.ts';
import { probeError } from '../../src/probe/outcome.ts';
import { compareHashes } from '../../src/probe/data-check/compare-hashes.ts';
import { nextFindings, type DataFindings } from '../../src/probe/data-check/data-checks.ts';

const GIB = 2 ** 30;
const MIB = 2 ** 20;
const THRESHOLDS = TEST_THRESHOLDS;

/** When every table round is judged. */
const NOW = 1_000_000;

function verdictOf(observations: RoundObservations, thresholds = THRESHOLDS, memory: LeaderMemory = NO_MEMORY, history: readonly RoundRecord[] = [], data: DataFindings | null = null): Verdict {
  return judge(buildClusterView(observations), thresholds, NOW, { memory, history, data });
}

/** The divergence check's findings after two comparisons with these hashes of members a, b, c (null: failed). */
function dataFindings(hashes: readonly (string | null)[]): DataFindings {
  const comparison = compareHashes(
    '100',
    hashes.map((hash, i) => ({
      memberId: 'abc'[i] as string,
      outcome: hash === null ? { ok: false, error: probeError('TIMEOUT', 'deadline exceeded'), ms: 1 } : { ok: true, value: { revision: '100', compactRevision: '50', hash, currentRevision: '101' }, ms: 1 },
    })),
    NOW,
  );
  return nextFindings(nextFindings(null, comparison), comparison);
}

/** What earlier rounds proved: a leader confirmed `agoMs` before NOW. */
function confirmedAgo(agoMs: number, lastLeader = { id: 'a', name: 'm-a' }): LeaderMemory {
  return { confirmedAt: NOW - agoMs, unconfirmedSince: NOW - agoMs + 500, lastLeader };
}

function codes(v: Verdict): ReasonCode[] {
  return v.reasons.map((r) => r.code).sort();
}

interface Row {
  readonly name: string;
  readonly observations: RoundObservations;
  readonly status: HealthStatus;
  readonly reasons: ReasonCode[];
  readonly quorum?: Partial<Verdict['quorum']>;
  /** What earlier rounds proved about leadership; nothing by default. */
  readonly memory?: LeaderMemory;
  /** Earlier rounds' records, for the checks that read history. */
  readonly history?: readonly RoundRecord[];
  /** The leader the verdict names (checked when given; null: none). */
  readonly leader?: Verdict['leader'];
  /** The divergence check's findings; none by default. */
  readonly data?: DataFindings;
}

const API_DOWN = probeError('KUBE_API_UNREACHABLE', 'cannot reach the API server https://127.0.0.1:6443: connect ECONNREFUSED');

const five = (states: FakeMember['state'][]): FakeMember[] =>
  states.map((state, i) => ({ id: `${i + 1}`, name: `m${i + 1}`, state }));

const ROWS: Row[] = [
  {
    name: 'all members healthy',
    observations: round(three()),
    status: 'healthy',
    reasons: [],
    quorum: { members: 3, voting: 3, required: 2, healthyVoting: 3, faultTolerance: 1 },
  },
  {
    name: 'one member unreachable',
    observations: round(three({ c: { state: 'unreachable' } })),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE'],
    quorum: { voting: 3, required: 2, healthyVoting: 2, faultTolerance: 0 },
  },
  {
    name: 'one member reached but its read fails',
    observations: round(three({ c: { state: 'unhealthy' } })),
    status: 'degraded',
    reasons: ['MEMBER_UNHEALTHY'],
    quorum: { healthyVoting: 2, faultTolerance: 0 },
  },
  {
    name: 'two of three down: fewer than a majority answers, quorum lost at once',
    observations: round(three({ b: { state: 'unreachable' }, c: { state: 'unreachable' }, a: { state: 'unhealthy' } }), { leader: null }),
    status: 'unhealthy',
    reasons: ['MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'QUORUM_LOST'],
    quorum: { voting: 3, required: 2, answering: 1, healthyVoting: 0, confirmed: false, faultTolerance: 0 },
    leader: null,
  },
  {
    name: 'two of three down, even with a leader confirmed a moment ago',
    observations: round(three({ b: { state: 'unreachable' }, c: { state: 'unreachable' }, a: { state: 'unhealthy' } })),
    memory: confirmedAgo(1000),
    status: 'unhealthy',
    reasons: ['MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'QUORUM_LOST'],
    leader: null,
  },
  // Elections: a majority answers but no read passes.
  {
    name: 'the leader hangs: its followers still name it, their reads time out — an election, not a lost quorum',
    observations: round(three({ a: { state: 'unreachable', failure: probeError('TIMEOUT', 'no answer within 1000ms') }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } })),
    memory: confirmedAgo(1500),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE', 'NO_LEADER'],
    quorum: { voting: 3, required: 2, answering: 2, healthyVoting: 0, confirmed: false, faultTolerance: 0 },
    leader: null,
  },
  {
    name: 'the leader hangs on the first round this service ever ran',
    observations: round(three({ a: { state: 'unreachable' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } })),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE', 'NO_LEADER'],
    leader: null,
  },
  {
    name: 'a majority answers, none knows a leader, within the election grace',
    observations: round(three({ a: { state: 'unhealthy' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } }), { leader: null }),
    memory: confirmedAgo(9_999),
    status: 'degraded',
    reasons: ['NO_LEADER'],
    leader: null,
  },
  {
    name: 'a majority answers, none knows a leader, past the election grace: a partition no election ends',
    observations: round(three({ a: { state: 'unhealthy' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } }), { leader: null }),
    memory: confirmedAgo(10_001),
    status: 'unhealthy',
    reasons: ['QUORUM_LOST'],
    leader: null,
  },
  {
    name: 'the leader answers and claims leadership, but cannot confirm a read (it lost its followers)',
    observations: round(three({ a: { state: 'unhealthy' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } })),
    memory: confirmedAgo(800),
    status: 'degraded',
    reasons: ['NO_LEADER'],
    leader: null,
  },
  {
    name: 'a new leader after the old one died: degraded, naming the new leader',
    observations: round(three({ a: { state: 'unreachable' }, b: { raftTerm: 3 }, c: { raftTerm: 3 } }), { leader: 'b' }),
    memory: confirmedAgo(2500),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE'],
    quorum: { answering: 2, healthyVoting: 2, confirmed: true, faultTolerance: 0 },
    leader: { id: 'b', name: 'm-b', reachable: true, term: 3 },
  },
  {
    name: 'an election ends during the round: Status still names the dead leader, the reads were served at the next term',
    observations: round(three({ a: { state: 'unreachable' }, b: { readTerm: 3 }, c: { readTerm: 3 } })),
    memory: confirmedAgo(2000),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE'],
    quorum: { confirmed: true, healthyVoting: 2, faultTolerance: 0 },
    leader: null,
  },
  {
    name: 'the old leader resumes at an older term and still claims leadership',
    observations: round(three({ a: { state: 'unhealthy', leaderId: 'a', raftTerm: 2 }, b: { raftTerm: 3 }, c: { raftTerm: 3 } }), { leader: 'b' }),
    status: 'degraded',
    reasons: ['LEADER_DISAGREEMENT', 'MEMBER_UNHEALTHY'],
    leader: { id: 'b', name: 'm-b', reachable: true, term: 3 },
  },
  // Reads that passed prove quorum, whatever the probe cannot see.
  {
    name: 'etcd-probe cannot reach two of three members that are fine among themselves',
    observations: round(three({ a: { state: 'unreachable', failure: probeError('TIMEOUT', 'no answer within 1000ms') }, b: { state: 'unreachable' } })),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'QUORUM_MARGIN_UNKNOWN'],
    quorum: { voting: 3, required: 2, answering: 1, healthyVoting: 1, confirmed: true, faultTolerance: 0 },
    leader: { id: 'a', name: 'm-a', reachable: false, term: 2 },
  },
  {
    name: 'a read passed, even long after the last confirmed leader: never QUORUM_LOST',
    observations: round(three({ a: { state: 'unreachable' }, b: { state: 'unreachable' } })),
    memory: confirmedAgo(600_000),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'QUORUM_MARGIN_UNKNOWN'],
  },
  {
    name: 'nothing reachable, membership never known',
    observations: round(three({ a: { state: 'unreachable' }, b: { state: 'unreachable' }, c: { state: 'unreachable' } })),
    status: 'unhealthy',
    reasons: ['NO_MEMBER_REACHABLE'],
    quorum: { members: 0, voting: 0, required: 0, healthyVoting: 0 },
  },
  {
    name: 'nothing reachable, membership from the previous round',
    observations: round(three({ a: { state: 'unreachable' }, b: { state: 'unreachable' }, c: { state: 'unreachable' } }), {
      previousMembers: three().map(listed),
    }),
    status: 'unhealthy',
    reasons: ['MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'NO_MEMBER_REACHABLE'],
    quorum: { members: 3, voting: 3, healthyVoting: 0 },
  },
  {
    name: 'NOSPACE from the alarm list',
    observations: round(three(), { alarmList: [{ memberId: 'b', alarm: 'NOSPACE' }] }),
    status: 'unhealthy',
    reasons: ['ALARM_NOSPACE'],
  },
  {
    name: "NOSPACE from Status when the alarm list fails",
    observations: round(three({ a: { statusAlarms: [{ memberId: 'a', alarm: 'NOSPACE' }] } }), { alarmList: 'fails' }),
    status: 'unhealthy',
    reasons: ['ALARM_NOSPACE'],
  },
  {
    name: 'CORRUPT',
    observations: round(three(), { alarmList: [{ memberId: 'c', alarm: 'CORRUPT' }] }),
    status: 'unhealthy',
    reasons: ['ALARM_CORRUPT'],
  },
  {
    name: "another member answers at a member's advertised URL: reported, and trusted for neither",
    observations: round(three({ c: { answersAs: 'b' } })),
    status: 'degraded',
    reasons: ['MEMBER_ID_MISMATCH'],
    quorum: { answering: 2, healthyVoting: 2, faultTolerance: 0 },
  },
  {
    name: 'an endpoint answers for another cluster',
    observations: round(three({ c: { clusterId: 'beef' } })),
    status: 'unhealthy',
    reasons: ['CLUSTER_ID_MISMATCH', 'MEMBER_UNREACHABLE'],
  },
  {
    name: 'an unstarted member counts towards quorum but cannot vote',
    observations: round([...three(), { id: 'd', state: 'unstarted' }]),
    status: 'degraded',
    reasons: ['UNSTARTED_MEMBER'],
    quorum: { members: 4, voting: 4, required: 3, healthyVoting: 3, faultTolerance: 0 },
  },
  {
    name: 'a healthy learner is only information',
    observations: round([...three(), { id: 'd', name: 'learner', learner: true }]),
    status: 'healthy',
    reasons: ['LEARNER_PRESENT'],
    quorum: { members: 4, voting: 3, required: 2, healthyVoting: 3, faultTolerance: 1 },
  },
  {
    name: 'an unreachable learner degrades but leaves quorum alone',
    observations: round([...three(), { id: 'd', name: 'learner', learner: true, state: 'unreachable' }]),
    status: 'degraded',
    reasons: ['LEARNER_PRESENT', 'MEMBER_UNREACHABLE'],
    quorum: { voting: 3, healthyVoting: 3, faultTolerance: 1 },
  },
  {
    name: 'members disagree on the membership',
    observations: round(three({ c: { lists: ['a', 'b'] } })),
    status: 'degraded',
    reasons: ['MEMBER_LIST_MISMATCH'],
  },
  {
    name: 'a stale member follows an older leader',
    observations: round(three({ c: { leaderId: 'b', raftTerm: 1 }, a: { raftTerm: 3 } })),
    status: 'degraded',
    reasons: ['LEADER_DISAGREEMENT'],
  },
  {
    name: 'database at 85% of the quota',
    observations: round(three({ b: { dbSizeBytes: 0.85 * 2 * GIB, dbSizeInUseBytes: 0.85 * 2 * GIB } })),
    status: 'degraded',
    reasons: ['DB_QUOTA_HIGH'],
  },
  {
    name: 'database just under 80% of the quota',
    observations: round(three({ b: { dbSizeBytes: 0.79 * 2 * GIB, dbSizeInUseBytes: 0.79 * 2 * GIB } })),
    status: 'healthy',
    reasons: [],
  },
  {
    name: 'a member applies more than 5000 entries behind its commits',
    observations: round(three({ b: { raftIndex: 20_000, raftAppliedIndex: 14_999 } })),
    status: 'degraded',
    reasons: ['RAFT_APPLY_LAG'],
  },
  {
    name: 'apply lag of exactly 5000 is tolerated',
    observations: round(three({ b: { raftIndex: 20_000, raftAppliedIndex: 15_000 } })),
    status: 'healthy',
    reasons: [],
  },
  {
    name: 'a follower trails the leader by more than the gap',
    observations: round(three({ a: { raftIndex: 5000 }, b: { raftIndex: 5000 }, c: { raftIndex: 3999 } })),
    status: 'degraded',
    reasons: ['MEMBER_BEHIND'],
  },
  {
    name: 'a follower trailing by exactly the gap is fine',
    observations: round(three({ a: { raftIndex: 5000 }, b: { raftIndex: 4990 }, c: { raftIndex: 4000 } })),
    status: 'healthy',
    reasons: [],
  },
  {
    name: 'members run different versions',
    observations: round(three({ c: { version: '3.6.1' } })),
    status: 'healthy',
    reasons: ['VERSION_SKEW'],
  },
  {
    name: 'a fragmented database is information',
    observations: round(three({ b: { dbSizeBytes: 400 * MIB, dbSizeInUseBytes: 150 * MIB } })),
    status: 'healthy',
    reasons: ['DB_FRAGMENTED'],
  },
  {
    name: 'fragmented by ratio but with only 100 MiB to reclaim',
    observations: round(three({ b: { dbSizeBytes: 150 * MIB, dbSizeInUseBytes: 50 * MIB } })),
    status: 'healthy',
    reasons: [],
  },
  {
    name: 'a read denied by RBAC has passed consensus: healthy',
    observations: round(three({ a: { permissionDenied: true }, b: { permissionDenied: true }, c: { permissionDenied: true } })),
    status: 'healthy',
    reasons: [],
  },
  {
    name: 'a member no endpoint reaches is unknown, not failed',
    observations: round(three({ c: { state: 'unprobed' } })),
    status: 'degraded',
    reasons: ['MEMBER_NOT_PROBED'],
    quorum: { voting: 3, healthyVoting: 2, faultTolerance: 0 },
  },
  {
    name: 'five members, two healthy: a read passed, so the margin is unknown, not negative',
    observations: round(five(['healthy', 'healthy', 'unreachable', 'unreachable', 'unreachable'])),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'QUORUM_MARGIN_UNKNOWN'],
    quorum: { voting: 5, required: 3, healthyVoting: 2, confirmed: true, faultTolerance: 0 },
  },
  {
    name: 'five members, two answering, no read passes: quorum lost',
    observations: round(five(['unhealthy', 'unhealthy', 'unreachable', 'unreachable', 'unreachable']), { leader: '3' }),
    status: 'unhealthy',
    reasons: ['MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'QUORUM_LOST'],
  },
  {
    name: 'five members, three healthy',
    observations: round(five(['healthy', 'healthy', 'healthy', 'unreachable', 'unreachable'])),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE'],
    quorum: { voting: 5, required: 3, healthyVoting: 3, faultTolerance: 0 },
  },
  {
    name: 'a configured endpoint that stands for no member fails (a dead load balancer)',
    observations: round(three(), { deadEndpoints: ['https://etcd-lb:2379'] }),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE'],
    quorum: { healthyVoting: 3, faultTolerance: 1 },
  },
  {
    name: 'members answer but none lists the membership',
    observations: round(three({ a: { memberListFails: true }, b: { memberListFails: true }, c: { memberListFails: true } })),
    status: 'degraded',
    reasons: ['MEMBERSHIP_UNKNOWN'],
  },
  // Findings that read earlier rounds (NOW is 1000 s: records at 700–995 s are within every window).
  {
    name: 'the leader changed four times in the last 15 minutes',
    observations: round(three({ a: { raftTerm: 6 }, b: { raftTerm: 6 }, c: { raftTerm: 6 } })),
    history: [rec(700, { leader: 'b', term: 2 }), rec(800, { leader: 'c', term: 3 }), rec(900, { leader: 'b', term: 4 }), rec(950, { leader: 'c', term: 5 })],
    status: 'degraded',
    reasons: ['FREQUENT_LEADER_CHANGES'],
  },
  {
    name: 'a member went down and came back twice in ten minutes',
    observations: round(three({ c: { state: 'unreachable' } })),
    history: [rec(800), rec(850, { states: { c: 'unreachable' } }), rec(900), rec(925, { states: { c: 'unreachable' } }), rec(950)],
    status: 'degraded',
    reasons: ['MEMBER_FLAPPING', 'MEMBER_UNREACHABLE'],
  },
  {
    name: "a follower's applied index stays put while the leader's moves",
    observations: round(three({ a: { raftIndex: 1200, raftAppliedIndex: 1200 }, b: { raftIndex: 1200, raftAppliedIndex: 1200 }, c: { raftIndex: 1200, raftAppliedIndex: 1000 } })),
    history: [rec(990, { applied: { a: 1100, b: 1100, c: 1000 } }), rec(995, { applied: { a: 1150, b: 1150, c: 1000 } })],
    status: 'degraded',
    reasons: ['MEMBER_STALLED'],
  },
  {
    name: "a member's database in use rises steadily towards the quota (6 h left at 0.1 GiB/h)",
    observations: round(three({ b: { dbSizeBytes: 1.4 * GIB, dbSizeInUseBytes: 1.4 * GIB } })),
    // 12 rounds over the 2 h before NOW (1000 s), b rising 0.1 GiB an hour to 1.4 GiB.
    history: Array.from({ length: 12 }, (_, i) => rec(1000 - 7200 + i * 600, { inUseKiB: { b: (1.2 * GIB + (0.1 * GIB * i) / 6) / 1024 } })),
    status: 'healthy',
    reasons: ['DB_QUOTA_EXHAUSTION_SOON'],
  },
  {
    name: 'the same rise with its last hour flat serves no ETA',
    observations: round(three({ b: { dbSizeBytes: 1.3 * GIB, dbSizeInUseBytes: 1.3 * GIB } })),
    history: Array.from({ length: 12 }, (_, i) => rec(1000 - 7200 + i * 600, { inUseKiB: { b: (1.2 * GIB + (0.1 * GIB * Math.min(i, 6)) / 6) / 1024 } })),
    status: 'healthy',
    reasons: [],
  },
  {
    name: 'elections do not count against every member as flapping',
    observations: round(three()),
    history: [rec(800), rec(850, { leader: null, states: { a: 'healthy' } }), rec(900, { leader: 'b', term: 3 }), rec(950, { leader: null })],
    status: 'healthy',
    reasons: [],
  },
  // The Kubernetes modes: nodes and pods beside the members, and the API's own failures.
  {
    name: 'kubernetes: every member has its node and a Ready etcd pod',
    observations: round(three(), { kube: kubeFacts(three()) }),
    status: 'healthy',
    reasons: [],
  },
  {
    name: 'kubernetes: a member without a control-plane node',
    observations: round(three(), { kube: kubeFacts(three(), { nodes: [node('m-a'), node('m-b')] }) }),
    status: 'degraded',
    reasons: ['MEMBER_WITHOUT_NODE'],
  },
  {
    name: 'kubernetes: more control-plane nodes than the member bound, and a node name that is not a DNS subdomain (issue 25)',
    observations: round(three(), { kube: { ...kubeFacts(three()), nodeBounds: { invalidNames: 1, leftOut: 24, max: 16 } } }),
    status: 'degraded',
    reasons: ['TOO_MANY_MEMBERS', 'INVALID_NODE_NAME'],
  },
  {
    name: 'kubernetes: a control-plane node past its grace period without a member',
    observations: round(three(), { kube: kubeFacts(three(), { nodes: [node('m-a'), node('m-b'), node('m-c'), node('m-d', 0)] }) }),
    status: 'degraded',
    reasons: ['NODE_WITHOUT_MEMBER'],
  },
  {
    name: 'kubernetes: a node still within its grace period without a member',
    observations: round(three(), { kube: kubeFacts(three(), { nodes: [node('m-a'), node('m-b'), node('m-c'), node('m-d', 1_000_000 - 60_000)] }) }),
    status: 'healthy',
    reasons: [],
  },
  {
    name: 'kubernetes: an etcd pod not Ready',
    observations: round(three(), { kube: kubeFacts(three(), { pods: [pod('m-a'), pod('m-b'), pod('m-c', false)] }) }),
    status: 'degraded',
    reasons: ['ETCD_POD_NOT_READY'],
  },
  {
    name: "kubernetes: one node's port-forward refused by its kubelet",
    observations: round(three({ c: { state: 'unreachable', failure: probeError('PORT_FORWARD_FAILED', 'kubelet refused') } }), { kube: kubeFacts(three()) }),
    status: 'degraded',
    reasons: ['MEMBER_UNREACHABLE'],
  },
  {
    name: 'kubernetes: API server down in port-forward mode — reported once, unhealthy',
    observations: round(
      three({ a: { state: 'unreachable', failure: API_DOWN }, b: { state: 'unreachable', failure: API_DOWN }, c: { state: 'unreachable', failure: API_DOWN } }),
      { kube: kubeFacts(three(), { apiError: API_DOWN, fresh: false }), previousMembers: three().map(listed) },
    ),
    status: 'unhealthy',
    reasons: ['KUBE_API_UNREACHABLE'],
  },
  {
    name: 'kubernetes: API server down in direct mode, etcd fine — degraded',
    observations: round(three(), { kube: kubeFacts(three(), { transport: 'direct', apiError: API_DOWN, fresh: false }) }),
    status: 'degraded',
    reasons: ['KUBE_API_UNREACHABLE'],
  },
  {
    name: 'kubernetes: API refuses (RBAC) in port-forward mode',
    observations: round(three(), { kube: kubeFacts(three(), { apiError: probeError('KUBE_API_REFUSED', 'forbidden'), fresh: false }) }),
    status: 'unhealthy',
    reasons: ['KUBE_API_REFUSED'],
  },
  {
    // The kubeconfig Secret names a server other than the Cluster's controlPlaneEndpoint: never dialled.
    name: 'cluster api: kubeconfig server is not the Cluster endpoint',
    observations: round(three(), { kube: kubeFacts(three(), { apiError: probeError('KUBE_API_NOT_ALLOWED', 'not the endpoint'), fresh: false }) }),
    status: 'unhealthy',
    reasons: ['KUBE_API_NOT_ALLOWED'],
  },
  {
    name: 'data: one member diverged in two comparisons in a row — degraded (fails strict, not quorum)',
    observations: round(three()),
    data: dataFindings(['7', '8', '7']),
    status: 'degraded',
    reasons: ['DATA_DIVERGED'],
  },
  {
    name: 'data: one member could not be compared, the others agree — healthy, never "consistent" for it',
    observations: round(three()),
    data: dataFindings(['7', null, '7']),
    status: 'healthy',
    reasons: ['DATA_NOT_COMPARED'],
  },
  {
    name: 'data: all three agree — healthy, no reason',
    observations: round(three()),
    data: dataFindings(['7', '7', '7']),
    status: 'healthy',
    reasons: [],
  },
];

describe('judge: the verdict table', () => {
  it('covers every reason of the catalogue (LEADER_STOP_COSTS_ELECTION only in disruption projections: test/probe/disruption.test.ts)', () => {
    const seen = new Set([...ROWS.flatMap((row) => row.reasons), 'LEADER_STOP_COSTS_ELECTION']);
    expect([...seen].sort()).toEqual(Object.keys(REASONS).sort());
  });

  it.each(ROWS)('$name → $status', (row) => {
    const v = verdictOf(row.observations, THRESHOLDS, row.memory, row.history, row.data);
    expect(v.status).toBe(row.status);
    expect(codes(v)).toEqual([...row.reasons].sort());
    if (row.quorum) expect(v.quorum).toMatchObject(row.quorum);
    if (row.leader !== undefined) expect(v.leader).toEqual(row.leader);
    for (const r of v.reasons) {
      expect(r.hint.length).toBeGreaterThan(20);
      expect(r.message.length).toBeGreaterThan(10);
    }
  });

  it('orders reasons most severe first', () => {
    const v = verdictOf(round(three({ c: { state: 'unreachable', version: '3.6.0' }, b: { version: '3.6.0' } }), { alarmList: [{ memberId: 'a', alarm: 'NOSPACE' }] }));
    expect(v.reasons.map((r) => r.severity)).toEqual(['unhealthy', 'degraded', 'info']);
  });

  it('names the member and the numbers in DB_QUOTA_HIGH, and says when NOSPACE is imminent', () => {
    const high = verdictOf(round(three({ b: { dbSizeBytes: 0.85 * 2 * GIB, dbSizeInUseBytes: 0.85 * 2 * GIB } }))).reasons[0];
    expect(high?.member).toEqual({ id: 'b', name: 'm-b' });
    expect(high?.message).toMatch(/m-b's database is 1\.7 GiB, 85% of the 2 GiB quota$/);
    const critical = verdictOf(round(three({ b: { dbSizeBytes: 0.96 * 2 * GIB, dbSizeInUseBytes: 0.96 * 2 * GIB } }))).reasons[0];
    expect(critical?.message).toMatch(/96% of the 2 GiB quota — NOSPACE is imminent/);
  });

  it('says no DB_QUOTA_HIGH "imminent" per member once NOSPACE is raised: ALARM_NOSPACE says it once (issue 26)', () => {
    const full = { dbSizeBytes: 0.99 * 2 * GIB, dbSizeInUseBytes: 0.99 * 2 * GIB };
    const raised = verdictOf(round(three({ a: full, b: full, c: full }), { alarmList: [{ memberId: 'a', alarm: 'NOSPACE' }] }));
    expect(raised.reasons.map((r) => r.code)).toEqual(['ALARM_NOSPACE']);
    const notYet = verdictOf(round(three({ a: full, b: full, c: full })));
    expect(notYet.reasons.map((r) => r.code)).toEqual(['DB_QUOTA_HIGH', 'DB_QUOTA_HIGH', 'DB_QUOTA_HIGH']);
    expect(notYet.reasons.every((r) => r.message.includes('NOSPACE is imminent'))).toBe(true);
  });

  it('gives NOSPACE its hint: compact, defragment every member, then disarm', () => {
    const v = verdictOf(round(three(), { alarmList: [{ memberId: 'b', alarm: 'NOSPACE' }] }));
    expect(v.reasons[0]?.member).toEqual({ id: 'b', name: 'm-b' });
    expect(v.reasons[0]?.hint).toMatch(/compact.*defrag.*--cluster.*alarm disarm/i);
    expect(v.reasons[0]?.message).toMatch(/from the alarm list/);
  });

  it('says the Status fallback was the source when the alarm list failed', () => {
    const observations = round(three({ a: { statusAlarms: [{ memberId: 'a', alarm: 'NOSPACE' }] } }), { alarmList: 'fails' });
    const view = buildClusterView(observations);
    expect(view.alarmSource).toBe('status');
    expect(view.alarmListError?.code).toBe('TIMEOUT');
    expect(judge(view, THRESHOLDS, 0).reasons[0]?.message).toMatch(/from the members' Status/);
  });

  it('QUORUM_LOST tells not to roll out, with how many answered', () => {
    const v = verdictOf(round(three({ b: { state: 'unreachable' }, c: { state: 'unreachable' }, a: { state: 'unhealthy' } }), { leader: null }), THRESHOLDS, confirmedAgo(3000));
    const lost = v.reasons.find((r) => r.code === 'QUORUM_LOST');
    expect(lost?.message).toBe('only 1 of 3 voting members answer etcd-probe (2 needed for a quorum) and no read passed consensus (the last leader was m-a)');
    expect(lost?.hint).toMatch(/do not scale or roll out/i);
  });

  it('NO_LEADER says an election is under way, names the leader that stopped answering, and never advises a restore', () => {
    const v = verdictOf(round(three({ a: { state: 'unreachable' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } })), THRESHOLDS, confirmedAgo(2500));
    const election = v.reasons.find((r) => r.code === 'NO_LEADER');
    expect(election?.severity).toBe('degraded');
    expect(election?.message).toBe(
      'election in progress: 2 of 3 voting members answer, the last leader m-a stopped answering (no leader confirmed for 2.5s; QUORUM_LOST after 10.0s)',
    );
    expect(election?.hint).not.toMatch(/snapshot|restore/i);
  });

  it('NO_LEADER without any leader named recalls the last one', () => {
    const v = verdictOf(round(three({ a: { state: 'unhealthy' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } }), { leader: null }), THRESHOLDS, confirmedAgo(1200));
    expect(v.reasons.find((r) => r.code === 'NO_LEADER')?.message).toBe(
      'election in progress: 3 of 3 voting members answer, none of them knows a leader; the last leader was m-a (no leader confirmed for 1.2s; QUORUM_LOST after 10.0s)',
    );
  });

  it('QUORUM_LOST after the grace says how long and why', () => {
    const v = verdictOf(round(three({ a: { state: 'unhealthy' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } }), { leader: null }), THRESHOLDS, confirmedAgo(12_000));
    expect(v.reasons.find((r) => r.code === 'QUORUM_LOST')?.message).toMatch(
      /^no leader for 12\.0s, longer than the election grace of 10\.0s: election in progress: 3 of 3 voting members answer, none of them knows a leader.*cannot reach each other \(a partition\)/,
    );
  });

  it('the election grace is a setting', () => {
    const observations = round(three({ a: { state: 'unhealthy' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } }), { leader: null });
    expect(verdictOf(observations, { ...THRESHOLDS, electionGraceMs: 3000 }, confirmedAgo(3500)).status).toBe('unhealthy');
    expect(verdictOf(observations, { ...THRESHOLDS, electionGraceMs: 3000 }, confirmedAgo(2500)).status).toBe('degraded');
  });

  it('counts the grace from the first leaderless round when no leader was ever confirmed', () => {
    const observations = round(three({ a: { state: 'unhealthy' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } }), { leader: null });
    const never = (sinceMs: number): LeaderMemory => ({ confirmedAt: null, unconfirmedSince: NOW - sinceMs, lastLeader: null });
    expect(verdictOf(observations, THRESHOLDS, never(9000)).status).toBe('degraded');
    expect(verdictOf(observations, THRESHOLDS, never(11_000)).status).toBe('unhealthy');
  });

  it('QUORUM_MARGIN_UNKNOWN names the members etcd-probe could not see and points at the path from etcd-probe', () => {
    const v = verdictOf(round(three({ a: { state: 'unreachable' }, b: { state: 'unreachable' } })));
    const unknown = v.reasons.find((r) => r.code === 'QUORUM_MARGIN_UNKNOWN');
    expect(unknown?.message).toBe(
      'a read passed consensus through m-c, so a leader holds a quorum, but etcd-probe saw only 1 of 3 voting members healthy, 2 required: m-a, m-b did not answer it or failed the read, so how many more members may fail is unknown',
    );
    expect(unknown?.hint).toMatch(/only unreachable from etcd-probe/);
  });

  it('names the leader, and the leader of the highest term when members disagree', () => {
    expect(verdictOf(round(three())).leader).toEqual({ id: 'a', name: 'm-a', reachable: true, term: 2 });
    const v = verdictOf(round(three({ a: { leaderId: 'b', raftTerm: 5 }, b: { leaderId: 'b', raftTerm: 5 }, c: { leaderId: 'a', raftTerm: 4 } })));
    expect(v.leader).toEqual({ id: 'b', name: 'm-b', reachable: true, term: 5 });
    expect(v.reasons[0]?.message).toMatch(/m-a, m-b follow m-b \(term 5\); m-c follows m-a \(term 4\)/);
  });

  it('a follower behind is measured against the leader, with the numbers', () => {
    const v = verdictOf(round(three({ a: { raftIndex: 5000 }, b: { raftIndex: 5000 }, c: { raftIndex: 3000 } })));
    expect(v.reasons[0]?.message).toBe('m-c trails the leader m-a by 2000 raft entries (3000 vs 5000; allowed 1000)');
  });

  it('uses the configured raft gap', () => {
    const v = verdictOf(round(three({ a: { raftIndex: 5000 }, b: { raftIndex: 5000 }, c: { raftIndex: 3000 } })), { ...THRESHOLDS, nodeGraceMs: 120_000, maxRaftGap: 5000 });
    expect(v.status).toBe('healthy');
  });

  it('keeps reasons free of a foreign endpoint in quorum and leader', () => {
    const v = verdictOf(round(three({ c: { clusterId: 'beef', leaderId: 'c' } })));
    expect(v.clusterId).toBe('c1a55e');
    expect(v.leader?.id).toBe('a');
    expect(v.quorum).toMatchObject({ voting: 3, healthyVoting: 2 });
    expect(v.reasons.find((r) => r.code === 'CLUSTER_ID_MISMATCH')?.message).toBe('https://m-c:2379 answers for cluster beef, not c1a55e');
  });

  it("MEMBER_ID_MISMATCH names the place, the member expected and the one that answered", () => {
    const v = verdictOf(round(three({ c: { answersAs: 'b' } })));
    expect(v.reasons[0]?.message).toBe("m-c: https://m-c:2379 is an advertised client URL of m-c, but answered as member b: its answer is not trusted");
    expect(v.reasons[0]?.member).toEqual({ id: 'c', name: 'm-c' });
  });

  it('lists every endpoint error when nothing answers', () => {
    const v = verdictOf(round([], { deadEndpoints: ['https://x:2379', 'https://y:2379'] }));
    expect(v.status).toBe('unhealthy');
    expect(v.reasons[0]?.message).toBe('no etcd member answered (https://x:2379: dns_failure; https://y:2379: dns_failure)');
  });

  it('never says healthy with no endpoint at all', () => {
    expect(verdictOf(round([])).status).toBe('unhealthy');
  });

  it('is pure: the same observations give the same verdict', () => {
    const observations = round(three({ c: { state: 'unreachable' } }));
    expect(verdictOf(observations)).toEqual(verdictOf(observations));
  });
});
