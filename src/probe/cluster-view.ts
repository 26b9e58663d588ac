import { preferredClientUrl } from './endpoint-url.ts';
import { claimOf, clusterIdOf, impersonated, rankFor, relate, respondentOf, type Relation } from './member-matching.ts';
import type { AlarmEntry, EndpointObservation, KubeFacts, ListedMember, MemberStatus, NodeFacts, PodFacts, RoundObservations } from './observations.ts';
import type { ProbeTarget } from './probe-target.ts';
import { probeError, type ProbeError } from './outcome.ts';
import { label } from './reason.ts';

/** One member as the round saw it, merged from the member list and the endpoints that answered as it. */
export interface MemberView {
  readonly id: string;
  /** Empty for a member that was added but never started. */
  readonly name: string;
  /** The endpoint its facts came from; its preferred client URL when it was not probed. */
  readonly endpoint: string | null;
  readonly peerURLs: readonly string[];
  readonly clientURLs: readonly string[];
  readonly isLearner: boolean;
  /** In the membership; false for an endpoint that answered as a member the membership does not list. */
  readonly listed: boolean;
  /** At least one endpoint was probed for it. */
  readonly probed: boolean;
  /** Status answered. */
  readonly reachable: boolean;
  /** Reachable, and a linearizable read passed (a learner: reachable, as learners serve no such reads). */
  readonly healthy: boolean;
  /** A linearizable read passed on it: proof that a leader held a quorum during the round. */
  readonly readPassed: boolean;
  /** The raft term in which its read was served; null when no read passed (or RBAC denied it). */
  readonly readTerm: number | null;
  readonly latencyMs: number | null;
  readonly error: ProbeError | null;
  readonly status: MemberStatus | null;
  /** The Kubernetes node of the same name (kubeadm names members after nodes), in the Kubernetes modes. */
  readonly node: NodeFacts | null;
  /** The etcd static pod on that node. */
  readonly pod: PodFacts | null;
}

/** One probed endpoint and what answered there. */
export interface EndpointView {
  readonly endpoint: string;
  readonly origin: ProbeTarget['origin'];
  /** The Kubernetes node the endpoint stands for, in the Kubernetes modes. */
  readonly node: string | null;
  readonly memberId: string | null;
  readonly clusterId: string | null;
  readonly reachable: boolean;
  readonly error: ProbeError | null;
}

/** The membership one member reports, for spotting disagreement. */
export interface ReportedMembership {
  readonly reporterId: string;
  readonly members: readonly ListedMember[];
}

/** Where the membership came from: this round's member lists, the previous round's, or nowhere. */
export type MembershipSource = 'member-list' | 'previous-round' | 'none';

/** Where the alarms came from: the alarm list (needs quorum), Status's errors (local), or nowhere. */
export type AlarmSource = 'alarm-list' | 'status';

/** A round's observations merged into members; pure data, judged by the verdict. */
export interface ClusterView {
  readonly clusterId: string | null;
  readonly membershipSource: MembershipSource;
  readonly members: readonly MemberView[];
  readonly endpoints: readonly EndpointView[];
  /** Endpoints that answered for another cluster; excluded from everything else. */
  readonly foreign: readonly EndpointView[];
  readonly reportedMemberships: readonly ReportedMembership[];
  readonly alarms: readonly AlarmEntry[];
  readonly alarmSource: AlarmSource | null;
  /** Why the alarm list could not be used, when it was asked and failed. */
  readonly alarmListError: ProbeError | null;
  /** What a Kubernetes mode learnt (nodes, pods, API failure); null in static mode. */
  readonly kube: KubeFacts | null;
}



function mostCommon<T>(values: readonly T[]): T | null {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: T | null = null;
  let bestCount = 0;
  // Map keeps insertion order, so a tie goes to the value seen first (the first configured endpoint).
  for (const [v, n] of counts) {
    if (n > bestCount) {
      best = v;
      bestCount = n;
    }
  }
  return best;
}

/** A comparable signature of a membership: sorted IDs, learners marked. */
export function membershipSignature(members: readonly ListedMember[]): string {
  return members
    .map((m) => (m.isLearner ? `${m.id}(learner)` : m.id))
    .sort()
    .join(',');
}

function chooseMembership(
  own: readonly EndpointObservation[],
  previous: readonly ListedMember[] | null,
): { members: readonly ListedMember[]; source: MembershipSource } {
  const lists = own.flatMap((o) => (o.memberList.ok ? [o.memberList.value] : []));
  if (lists.length === 0) {
    return previous ? { members: previous, source: 'previous-round' } : { members: [], source: 'none' };
  }
  // The leader's view is authoritative; without it, the view most members share.
  const leaderId = mostCommon(own.flatMap((o) => (o.status.ok && o.status.value.leaderId ? [o.status.value.leaderId] : [])));
  const fromLeader = lists.find((l) => l.memberId === leaderId);
  if (fromLeader) return { members: fromLeader.members, source: 'member-list' };
  const signature = mostCommon(lists.map((l) => membershipSignature(l.members)));
  const shared = lists.find((l) => membershipSignature(l.members) === signature) ?? (lists[0] as (typeof lists)[0]);
  return { members: shared.members, source: 'member-list' };
}


/** The observations that speak of one listed member, by the rules of member-matching.ts. */
interface MemberEvidence {
  /** Answered as it, or failed where it should answer. */
  readonly candidates: readonly EndpointObservation[];
  /** Stood for it but answered as another member: never trusted. */
  readonly impostors: readonly EndpointObservation[];
  /** Stood for it but answered for another cluster. */
  readonly foreign: readonly EndpointObservation[];
}

function describeImpostor(o: EndpointObservation, listed: ListedMember): ProbeError {
  const claim = claimOf(o, listed) === 'node-name' ? `the etcd of node ${listed.name}` : `an advertised client URL of ${label(listed)}`;
  return probeError('WRONG_MEMBER', `${o.target.endpoint} is ${claim}, but answered as member ${respondentOf(o)}: its answer is not trusted`);
}

function viewMember(listed: ListedMember, isListed: boolean, evidence: MemberEvidence, kube: KubeFacts | null = null): MemberView {
  const sorted = [...evidence.candidates].sort(rankFor(listed));
  const primary = sorted[0];
  const answered = sorted.find((o) => o.status.ok);
  const readOk = sorted.find((o) => o.health.ok);
  const reachable = answered !== undefined;
  const learnerOk = listed.isLearner && answered !== undefined;
  const healthy = reachable && (readOk !== undefined || learnerOk);
  let error: ProbeError | null = null;
  const impostor = evidence.impostors[0];
  const foreign = evidence.foreign[0];
  if (!reachable && impostor) error = describeImpostor(impostor, listed);
  else if (!reachable && foreign) {
    error = probeError('WRONG_CLUSTER', `${foreign.target.endpoint} answers for cluster ${clusterIdOf(foreign)}`);
  } else if (primary && !reachable && !primary.status.ok) error = primary.status.error;
  else if (answered && !healthy && !answered.health.ok) error = answered.health.error;
  let latencyMs: number | null = null;
  if (readOk?.health.ok) latencyMs = readOk.health.ms;
  else if (answered) latencyMs = answered.status.ms;
  const source = answered ?? primary ?? impostor;
  return {
    id: listed.id,
    name: listed.name,
    endpoint: source ? source.target.endpoint : preferredClientUrl(listed.clientURLs),
    peerURLs: listed.peerURLs,
    clientURLs: listed.clientURLs,
    isLearner: listed.isLearner,
    listed: isListed,
    probed: evidence.candidates.length + evidence.impostors.length + evidence.foreign.length > 0,
    reachable,
    healthy,
    readPassed: readOk !== undefined,
    readTerm: readOk?.health.ok ? readOk.health.value.raftTerm : null,
    latencyMs: latencyMs === null ? null : Math.round(latencyMs * 100) / 100,
    error,
    status: answered?.status.ok ? answered.status.value : null,
    node: (listed.name !== '' && kube?.nodes.find((n) => n.name === listed.name)) || null,
    pod: (listed.name !== '' && kube?.pods.find((p) => p.nodeName === listed.name)) || null,
  };
}

function viewEndpoint(o: EndpointObservation): EndpointView {
  return {
    endpoint: o.target.endpoint,
    origin: o.target.origin,
    node: o.target.node ?? null,
    memberId: respondentOf(o),
    clusterId: clusterIdOf(o),
    reachable: o.status.ok,
    error: o.status.ok ? null : o.status.error,
  };
}

function alarmsOf(own: readonly EndpointObservation[]): Pick<ClusterView, 'alarms' | 'alarmSource' | 'alarmListError'> {
  const asked = own.find((o) => o.alarmList !== null);
  if (asked?.alarmList?.ok) return { alarms: asked.alarmList.value, alarmSource: 'alarm-list', alarmListError: null };
  const alarmListError = asked?.alarmList && !asked.alarmList.ok ? asked.alarmList.error : null;
  const statuses = own.flatMap((o) => (o.status.ok ? [o.status.value] : []));
  if (statuses.length === 0) return { alarms: [], alarmSource: null, alarmListError };
  const seen = new Map<string, AlarmEntry>();
  for (const alarm of statuses.flatMap((s) => s.alarms)) seen.set(`${alarm.memberId}/${alarm.alarm}`, alarm);
  return { alarms: [...seen.values()], alarmSource: 'status', alarmListError };
}

/** Merges a round's per-endpoint observations into one view of the cluster's members. Pure. */
export function buildClusterView(observations: RoundObservations): ClusterView {
  const all = observations.endpoints;
  const clusterId = mostCommon(all.flatMap((o) => clusterIdOf(o) ?? []));
  const isForeign = (o: EndpointObservation) => {
    const id = clusterIdOf(o);
    return id !== null && id !== clusterId;
  };
  const own = all.filter((o) => !isForeign(o));
  const membership = chooseMembership(own, observations.previousMembers);
  const listedIds = new Set(membership.members.map((m) => m.id));

  const foreign = all.filter(isForeign);
  const listedMembers = membership.members;
  const members = listedMembers.map((listed) => {
    const related = (relation: Relation) => own.filter((o) => relate(o, listed, listedMembers) === relation);
    const evidence: MemberEvidence = {
      candidates: [...related('answered-as'), ...related('stands-for')],
      impostors: related('impostor'),
      foreign: foreign.filter((o) => claimOf(o, listed) !== null),
    };
    return viewMember(listed, true, evidence, observations.kube);
  });
  // An endpoint answering as a member the membership does not list (or no membership at all), unless it
  // stands for a listed member (then it is that member's impostor, reported there).
  const unlisted = new Map<string, EndpointObservation[]>();
  for (const o of own) {
    const id = respondentOf(o);
    if (id !== null && !listedIds.has(id) && impersonated(o, listedMembers) === null) unlisted.set(id, [...(unlisted.get(id) ?? []), o]);
  }
  for (const [id, candidates] of unlisted) {
    const status = candidates.find((o) => o.status.ok)?.status;
    const isLearner = status?.ok ? status.value.isLearner : false;
    members.push(viewMember({ id, name: '', peerURLs: [], clientURLs: [], isLearner }, false, { candidates, impostors: [], foreign: [] }));
  }

  return {
    clusterId,
    membershipSource: membership.source,
    members,
    endpoints: all.map(viewEndpoint),
    foreign: foreign.map(viewEndpoint),
    reportedMemberships: own.flatMap((o) =>
      o.memberList.ok ? [{ reporterId: o.memberList.value.memberId, members: o.memberList.value.members }] : [],
    ),
    ...alarmsOf(own),
    kube: observations.kube,
  };
}
