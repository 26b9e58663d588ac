import { memberDataCheck } from './data-check-document.ts';
import type { Policy } from '../config/config.ts';
import type { EndpointView, MemberView } from '../probe/cluster-view.ts';
import type { ProbeError } from '../probe/outcome.ts';
import { disruptionsAllowed } from '../probe/disruption.ts';
import type { MemberQuotaEta } from '../probe/history/quota-eta-check.ts';
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

/** A member's quota ETA as documents give it: the seconds left and the growth when served, else why not. */
function etaDoc(e: MemberQuotaEta) {
  const { eta } = e;
  return {
    inUseBytes: e.inUseBytes,
    quotaBytes: e.quotaBytes,
    quotaSource: e.quotaSource,
    etaSeconds: eta.served ? Math.round(eta.etaMs / 1000) : null,
    growthBytesPerSecond: eta.served ? eta.bytesPerSecond : null,
    basis: eta.served ? eta.basis : null,
    withheld: eta.served ? null : eta.why,
    samples: eta.samples,
    spanSeconds: Math.round(eta.spanMs / 1000),
  };
}

/** The quota section of `/healthz/etcd`: the quota, where it came from, and each answering member's ETA. */
function quotaDoc(snapshot: Snapshot) {
  const etas = snapshot.verdict.quotaEta;
  return {
    quotaBytes: etas[0]?.quotaBytes ?? null,
    source: etas[0]?.quotaSource ?? null,
    members: etas.map((e) => ({ id: e.member.id, name: e.member.name, ...etaDoc(e) })),
  };
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
    quota: quotaDoc(snapshot),
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

function quotaEtaOf(snapshot: Snapshot, id: string) {
  const e = snapshot.verdict.quotaEta.find((q) => q.member.id === id);
  return e ? etaDoc(e) : null;
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
    quotaEta: quotaEtaOf(snapshot, m.id),
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
