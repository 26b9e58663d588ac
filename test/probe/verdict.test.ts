import { describe, expect, it } from 'vitest';
import { buildClusterView } from '../../src/probe/cluster-view.ts';
import type { RoundObservations } from '../../src/probe/observations.ts';
import { REASONS, type ReasonCode } from '../../src/probe/reason-catalogue.ts';
import { httpStatusFor, judge, type HealthStatus, type Verdict } from '../../src/probe/verdict.ts';
import { kubeFacts, listed, node, pod, round, three, type FakeMember } from './observation-builders.ts';
import { probeError } from '../../src/probe/outcome.ts';

const GIB = 2 ** 30;
const MIB = 2 ** 20;
const THRESHOLDS = { quotaBytes: 2 * GIB, nodeGraceMs: 120_000, maxRaftGap: 1000 };

function verdictOf(observations: RoundObservations, thresholds = THRESHOLDS): Verdict {
  return judge(buildClusterView(observations), thresholds, 1_000_000);
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
    name: 'two of three down: quorum lost, no leader',
    observations: round(three({ b: { state: 'unreachable' }, c: { state: 'unreachable' }, a: { state: 'unhealthy' } }), { leader: null }),
    status: 'unhealthy',
    reasons: ['MEMBER_UNHEALTHY', 'MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'NO_LEADER', 'QUORUM_LOST'],
    quorum: { voting: 3, required: 2, healthyVoting: 0, faultTolerance: 0 },
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
    name: 'no member knows a leader and no read passes',
    observations: round(three({ a: { state: 'unhealthy' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } }), { leader: null }),
    status: 'unhealthy',
    reasons: ['MEMBER_UNHEALTHY', 'MEMBER_UNHEALTHY', 'MEMBER_UNHEALTHY', 'NO_LEADER', 'QUORUM_LOST'],
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
    name: 'five members, two healthy: a read passed but the margin is negative',
    observations: round(five(['healthy', 'healthy', 'unreachable', 'unreachable', 'unreachable'])),
    status: 'unhealthy',
    reasons: ['MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'MEMBER_UNREACHABLE', 'QUORUM_LOST'],
    quorum: { voting: 5, required: 3, healthyVoting: 2, faultTolerance: 0 },
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
];

describe('judge: the verdict table', () => {
  it('covers every reason of the catalogue', () => {
    const seen = new Set(ROWS.flatMap((row) => row.reasons));
    expect([...seen].sort()).toEqual(Object.keys(REASONS).sort());
  });

  it.each(ROWS)('$name → $status', (row) => {
    const v = verdictOf(row.observations);
    expect(v.status).toBe(row.status);
    expect(codes(v)).toEqual([...row.reasons].sort());
    if (row.quorum) expect(v.quorum).toMatchObject(row.quorum);
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

  it('QUORUM_LOST tells not to roll out', () => {
    const v = verdictOf(round(three({ b: { state: 'unreachable' }, c: { state: 'unreachable' }, a: { state: 'unhealthy' } }), { leader: null }));
    const lost = v.reasons.find((r) => r.code === 'QUORUM_LOST');
    expect(lost?.message).toMatch(/0 of 3 voting members healthy, 2 required/);
    expect(lost?.hint).toMatch(/do not scale or roll out/i);
  });

  it('names the leader, and the leader of the highest term when members disagree', () => {
    expect(verdictOf(round(three())).leader).toEqual({ id: 'a', name: 'm-a' });
    const v = verdictOf(round(three({ a: { leaderId: 'b', raftTerm: 5 }, b: { leaderId: 'b', raftTerm: 5 }, c: { leaderId: 'a', raftTerm: 4 } })));
    expect(v.leader).toEqual({ id: 'b', name: 'm-b' });
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

describe('httpStatusFor: the two policies', () => {
  it.each([
    ['healthy', 'quorum', 200],
    ['healthy', 'strict', 200],
    ['degraded', 'quorum', 200],
    ['degraded', 'strict', 503],
    ['unhealthy', 'quorum', 503],
    ['unhealthy', 'strict', 503],
  ] as const)('%s under %s → %i', (status, policy, code) => {
    expect(httpStatusFor(status, policy)).toBe(code);
  });
});
