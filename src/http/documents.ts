import { memberDataCheck } from './data-check-document.ts';
import type { Policy } from '../config/config.ts';
import type { EndpointView, MemberView } from '../probe/cluster-view.ts';
import type { ProbeError } from '../probe/outcome.ts';
import { disruptionsAllowed } from '../probe/disruption.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import { isAnsweringLeader } from '../probe/verdict.ts';

/**
 * When a document's round finished; common to every probe-backed document. How old the round is when
 * an answer leaves is the `Age` header's business, not the body's: the body stays the same bytes for the
 * whole round, which is what lets it be rendered once, cached and revalidated.
 */
export interface Freshness {
  readonly checkedAt: string;
}

/** The freshness field of a round's documents. */
export function freshness(snapshot: Snapshot): Freshness {
  return { checkedAt: snapshot.checkedAtIso };
}

function errorDoc(error: ProbeError | null): { code: string; message: string; layer: string } | null {
  return error ? { code: error.code, message: error.message, layer: error.layer } : null;
}

/** Which Kubernetes cluster a round probed and how, or null in static mode. */
function kubeDoc(snapshot: Snapshot) {
  const kube = snapshot.view.kube;
  return kube ? { cluster: kube.cluster, transport: kube.transport, apiError: errorDoc(kube.apiError) } : null;
}

/** The `/healthz/etcd` document. */
export function healthzDocument(snapshot: Snapshot, policy: Policy) {
  const { verdict, mode, durationMs } = snapshot;
  return {
    status: verdict.status,
    policy,
    mode,
    kubernetes: kubeDoc(snapshot),
    reasons: verdict.reasons,
    quorum: verdict.quorum,
    disruptionsAllowed: disruptionsAllowed(verdict),
    leader: verdict.leader,
    clusterId: verdict.clusterId,
    ...freshness(snapshot),
    durationMs,
  };
}

/**
 * The `/healthz/etcd` document for a caller without the token (when one is set): the status, the
 * policy and the reason codes, nothing that names a host, member, cluster or API server.
 */
export function healthzSummaryDocument(snapshot: Snapshot, policy: Policy) {
  return {
    status: snapshot.verdict.status,
    policy,
    reasons: snapshot.verdict.reasons.map((r) => ({ code: r.code, severity: r.severity })),
  };
}

/** One member as `/members` lists it and `/members/{idOrName}` returns it. */
export function memberDocument(m: MemberView, snapshot: Snapshot) {
  const s = m.status;
  // In the Kubernetes modes each member names its node and etcd pod (null when none matches its name).
  const kube = snapshot.view.kube
    ? {
        node: m.node ? { name: m.node.name, ready: m.node.ready, internalIP: m.node.internalIP, createdAt: new Date(m.node.createdAt).toISOString() } : null,
        pod: m.pod ? { name: m.pod.name, ready: m.pod.ready } : null,
      }
    : {};
  return {
    id: m.id,
    name: m.name,
    endpoint: m.endpoint,
    peerURLs: m.peerURLs,
    clientURLs: m.clientURLs,
    isLearner: m.isLearner,
    isLeader: isAnsweringLeader(snapshot.verdict, m.id),
    reachable: m.reachable,
    healthy: m.healthy,
    latencyMs: m.latencyMs,
    error: errorDoc(m.error),
    status: s
      ? {
          version: s.version,
          dbSizeBytes: s.dbSizeBytes,
          dbSizeInUseBytes: s.dbSizeInUseBytes,
          raftIndex: s.raftIndex,
          raftAppliedIndex: s.raftAppliedIndex,
          raftTerm: s.raftTerm,
          leaderId: s.leaderId,
        }
      : null,
    alarms: snapshot.view.alarms.filter((a) => a.memberId === m.id).map((a) => a.alarm),
    dataCheck: memberDataCheck(snapshot.data, m.id),
    ...kube,
  };
}

function endpointDocument(e: EndpointView) {
  return { endpoint: e.endpoint, origin: e.origin, node: e.node, memberId: e.memberId, reachable: e.reachable, error: errorDoc(e.error) };
}

/** The `/members` document. */
export function membersDocument(snapshot: Snapshot) {
  return {
    clusterId: snapshot.view.clusterId,
    mode: snapshot.mode,
    kubernetes: kubeDoc(snapshot),
    ...freshness(snapshot),
    membershipSource: snapshot.view.membershipSource,
    members: snapshot.view.members.map((m) => memberDocument(m, snapshot)),
    endpoints: snapshot.view.endpoints.map(endpointDocument),
  };
}

/** The `/alarms` document. */
export function alarmsDocument(snapshot: Snapshot) {
  const { view } = snapshot;
  return {
    ...freshness(snapshot),
    source: view.alarmSource,
    alarms: view.alarms.map((a) => ({
      memberId: a.memberId,
      memberName: view.members.find((m) => m.id === a.memberId)?.name ?? '',
      alarm: a.alarm,
    })),
  };
}
