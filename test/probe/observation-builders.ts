import { probeError } from '../../src/probe/outcome.ts';
import type { AlarmEntry, EndpointObservation, HealthRead, KubeFacts, ListedMember, MemberStatus, NodeFacts, PodFacts, RoundObservations } from '../../src/probe/observations.ts';
import type { Outcome, ProbeError } from '../../src/probe/outcome.ts';

// Builders of round observations for the verdict's table tests: data in, no etcd, no I/O.

export const CLUSTER = 'c1a55e';

/** How a fake member behaves in a round. */
export interface FakeMember {
  readonly id: string;
  readonly name?: string;
  readonly learner?: boolean;
  /** healthy: everything answers; unreachable: nothing does; unhealthy: Status yes, the read no. */
  readonly state?: 'healthy' | 'unreachable' | 'unhealthy' | 'unstarted' | 'unprobed';
  readonly leaderId?: string | null;
  readonly raftTerm?: number;
  readonly raftIndex?: number;
  readonly raftAppliedIndex?: number;
  readonly dbSizeBytes?: number;
  readonly dbSizeInUseBytes?: number;
  readonly dbSizeQuotaBytes?: number;
  readonly version?: string;
  readonly clusterId?: string;
  readonly statusAlarms?: readonly AlarmEntry[];
  /** The membership this member reports; the whole fake cluster by default. */
  readonly lists?: readonly string[];
  readonly permissionDenied?: boolean;
  /** The raft term its read reports; its Status term by default (a higher one: its Status predates an election). */
  readonly readTerm?: number;
  readonly memberListFails?: boolean;
  /** Another member's ID that answers at this member's URL (an impostor: IP reuse, a stale DNS record). */
  readonly answersAs?: string;
  /** How an unreachable member failed; CONNECTION_REFUSED at the etcd layer by default. */
  readonly failure?: ProbeError;
}

const fail = (code: ProbeError['code'], message = code.toLowerCase()): Outcome<never> => ({ ok: false, error: probeError(code, message), ms: 2 });
const ok = <T>(value: T, ms = 1.5): Outcome<T> => ({ ok: true, value, ms });

export function urlOf(m: FakeMember): string {
  return `https://${m.name ?? m.id}:2379`;
}

export function listed(m: FakeMember): ListedMember {
  const unstarted = m.state === 'unstarted';
  return {
    id: m.id,
    name: unstarted ? '' : (m.name ?? m.id),
    peerURLs: [`https://${m.name ?? m.id}:2380`],
    clientURLs: unstarted ? [] : [urlOf(m)],
    isLearner: m.learner ?? false,
  };
}

function status(m: FakeMember, leader: string | null): MemberStatus {
  return {
    clusterId: m.clusterId ?? CLUSTER,
    memberId: m.answersAs ?? m.id,
    version: m.version ?? '3.5.17',
    dbSizeBytes: m.dbSizeBytes ?? 20_480,
    dbSizeInUseBytes: m.dbSizeInUseBytes ?? 16_384,
    dbSizeQuotaBytes: m.dbSizeQuotaBytes ?? null,
    leaderId: m.leaderId === undefined ? leader : m.leaderId,
    raftIndex: m.raftIndex ?? 1000,
    raftAppliedIndex: m.raftAppliedIndex ?? m.raftIndex ?? 1000,
    raftTerm: m.raftTerm ?? 2,
    isLearner: m.learner ?? false,
    errors: [],
    alarms: m.statusAlarms ?? [],
  };
}

/** Options of a whole round. */
export interface RoundOptions {
  /** The leader every healthy member reports, unless a member overrides it; the first voting member by default. */
  readonly leader?: string | null;
  /** What the alarm list (asked of the first endpoint) returns; [] by default; 'fails' for a timeout. */
  readonly alarmList?: readonly AlarmEntry[] | 'fails';
  readonly previousMembers?: readonly ListedMember[] | null;
  /** Extra endpoints that fail without answering as anyone. */
  readonly deadEndpoints?: readonly string[];
  /** A Kubernetes mode's facts; members' targets then stand for the node named like them. */
  readonly kube?: KubeFacts;
}

/** Observations of a round over fake members. */
export function round(members: readonly FakeMember[], options: RoundOptions = {}): RoundObservations {
  const leader = options.leader === undefined ? (members.find((m) => !m.learner)?.id ?? null) : options.leader;
  const everyone = members.map(listed);
  const endpoints: EndpointObservation[] = [];
  for (const m of members) {
    const state = m.state ?? 'healthy';
    if (state === 'unstarted' || state === 'unprobed') continue;
    const target = options.kube
      ? { key: `node:${m.name}`, endpoint: `port-forward://kube-system/etcd-${m.name}:2379`, origin: 'kubernetes' as const, node: m.name ?? m.id }
      : { key: urlOf(m), endpoint: urlOf(m), origin: 'configured' as const };
    const isFirst = endpoints.length === 0;
    const alarmList = !isFirst ? null : options.alarmList === 'fails' ? fail('TIMEOUT') : ok(options.alarmList ?? []);
    if (state === 'unreachable') {
      const failed: Outcome<never> = m.failure ? { ok: false, error: m.failure, ms: 2 } : fail('CONNECTION_REFUSED', 'connection refused');
      endpoints.push({ target, status: failed, health: failed, memberList: failed, alarmList: isFirst ? failed : null });
      continue;
    }
    const lists = m.lists ? everyone.filter((l) => m.lists?.includes(l.id)) : everyone;
    const denied = m.permissionDenied ?? false;
    let health: Outcome<HealthRead> = ok({ permissionDenied: denied, raftTerm: denied ? null : (m.readTerm ?? m.raftTerm ?? 2) }, 3);
    if (state === 'unhealthy') health = fail('TIMEOUT', 'no answer within 2000ms');
    else if (m.learner) health = fail('LEARNER_READ_REJECTED');
    endpoints.push({
      target,
      status: ok(status(m, leader)),
      health,
      memberList: m.memberListFails ? fail('TIMEOUT') : ok({ clusterId: m.clusterId ?? CLUSTER, memberId: m.answersAs ?? m.id, members: lists }),
      alarmList,
    });
  }
  for (const url of options.deadEndpoints ?? []) {
    endpoints.push({ target: { key: url, endpoint: url, origin: 'configured' }, status: fail('DNS_FAILURE'), health: fail('DNS_FAILURE'), memberList: fail('DNS_FAILURE'), alarmList: null });
  }
  return { startedAt: 0, durationMs: 5, endpoints, previousMembers: options.previousMembers ?? null, kube: options.kube ?? null };
}

/** Three healthy voting members a, b, c; a leads. */
export function three(overrides: Partial<Record<'a' | 'b' | 'c', Partial<FakeMember>>> = {}): FakeMember[] {
  return (['a', 'b', 'c'] as const).map((id) => ({ id, name: `m-${id}`, ...overrides[id] }));
}

/** Kubernetes facts for fake members: one Ready control-plane node per named member (created at 0) and its Ready etcd pod. */
export function kubeFacts(
  members: readonly FakeMember[],
  overrides: { transport?: KubeFacts['transport']; nodes?: NodeFacts[]; pods?: PodFacts[]; apiError?: ProbeError | null; fresh?: boolean } = {},
): KubeFacts {
  const named = members.filter((m) => m.state !== 'unstarted').map((m) => m.name ?? m.id);
  return {
    transport: overrides.transport ?? 'port-forward',
    cluster: 'default/workload',
    nodes: overrides.nodes ?? named.map((name) => node(name)),
    pods: overrides.pods ?? named.map((name) => pod(name)),
    fresh: overrides.fresh ?? true,
    apiError: overrides.apiError ?? null,
  };
}

/** A Ready control-plane node. */
export function node(name: string, createdAt = 0): NodeFacts {
  return { name, ready: true, internalIP: '10.0.0.1', createdAt };
}

/** kubeadm's etcd pod on a node. */
export function pod(nodeName: string, ready = true): PodFacts {
  return { name: `etcd-${nodeName}`, namespace: 'kube-system', nodeName, ready, phase: 'Running', advertiseClientUrl: null };
}
