import type { Policy } from '../config/config.ts';
import type { EndpointView, MemberView } from '../probe/cluster-view.ts';
import type { ProbeError } from '../probe/outcome.ts';
import type { CacheRead } from '../probe/round-cache.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import { isAnsweringLeader } from '../probe/verdict.ts';

/** When a response's data was taken and how it was served; common to every probe-backed document. */
export interface Freshness {
  readonly checkedAt: string;
  readonly ageSeconds: number;
  readonly cached: boolean;
}

/** Freshness fields for a cache read, as seen at `now`. */
export function freshness(read: CacheRead<Snapshot>, now: number): Freshness {
  return {
    checkedAt: read.value.checkedAtIso,
    ageSeconds: Math.max(0, Math.round((now - read.completedAt) / 10) / 100),
    cached: read.cache === 'hit',
  };
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
export function healthzDocument(read: CacheRead<Snapshot>, policy: Policy, now: number) {
  const { verdict, mode, durationMs } = read.value;
  return {
    status: verdict.status,
    policy,
    mode,
    kubernetes: kubeDoc(read.value),
    reasons: verdict.reasons,
    quorum: verdict.quorum,
    leader: verdict.leader,
    clusterId: verdict.clusterId,
    ...freshness(read, now),
    durationMs,
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
    ...kube,
  };
}

function endpointDocument(e: EndpointView) {
  return { endpoint: e.endpoint, origin: e.origin, node: e.node, memberId: e.memberId, reachable: e.reachable, error: errorDoc(e.error) };
}

/** The `/members` document. */
export function membersDocument(read: CacheRead<Snapshot>, now: number) {
  const snapshot = read.value;
  return {
    clusterId: snapshot.view.clusterId,
    mode: snapshot.mode,
    kubernetes: kubeDoc(snapshot),
    ...freshness(read, now),
    membershipSource: snapshot.view.membershipSource,
    members: snapshot.view.members.map((m) => memberDocument(m, snapshot)),
    endpoints: snapshot.view.endpoints.map(endpointDocument),
  };
}

/** The `/alarms` document. */
export function alarmsDocument(read: CacheRead<Snapshot>, now: number) {
  const { view } = read.value;
  return {
    ...freshness(read, now),
    source: view.alarmSource,
    alarms: view.alarms.map((a) => ({
      memberId: a.memberId,
      memberName: view.members.find((m) => m.id === a.memberId)?.name ?? '',
      alarm: a.alarm,
    })),
  };
}
