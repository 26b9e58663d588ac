import type { Outcome, ProbeError } from './outcome.ts';
import type { ProbeTarget } from './probe-target.ts';

/** The alarms etcd raises. */
export type AlarmKind = 'NOSPACE' | 'CORRUPT';

/** One active alarm on one member (IDs in hex). */
export interface AlarmEntry {
  readonly memberId: string;
  readonly alarm: AlarmKind;
}

/** What Maintenance.Status reported; answered locally by the member, without quorum. */
export interface MemberStatus {
  readonly clusterId: string;
  readonly memberId: string;
  readonly version: string;
  readonly dbSizeBytes: number;
  readonly dbSizeInUseBytes: number;
  /** The quota the member reports (etcd 3.6 and later); null when it reports none. */
  readonly dbSizeQuotaBytes: number | null;
  /** The member's idea of the leader; null when it knows none. */
  readonly leaderId: string | null;
  readonly raftIndex: number;
  readonly raftAppliedIndex: number;
  readonly raftTerm: number;
  readonly isLearner: boolean;
  /** The member's key-value store revision (Status's response header), a uint64 as a decimal string; absent when not read. */
  readonly revision?: string;
  /** Status's `errors`, as etcd wrote them. */
  readonly errors: readonly string[];
  /** The alarms found in `errors` (the fallback when the alarm list needs a quorum it lacks). */
  readonly alarms: readonly AlarmEntry[];
}

/** One member's Maintenance.HashKV answer: the hash of its keys up to `revision`, and its compact revision when hashing began. */
export interface KvHash {
  /** The revision hashed (the request's), decimal. */
  readonly revision: string;
  /** The member's compact revision when the hash began, decimal; hashes agree only between equal compact revisions. */
  readonly compactRevision: string;
  /** The hash (a uint32), decimal. */
  readonly hash: string;
  /** The member's current revision when it answered, decimal. */
  readonly currentRevision: string;
}

/** How a linearizable read went through: read, or denied by RBAC after consensus. */
export interface HealthRead {
  readonly permissionDenied: boolean;
  /** The raft term the answering member was in when it served the read (its response header); null when denied. */
  readonly raftTerm: number | null;
}

/** A member as Cluster.MemberList lists it; an unstarted member has an empty name and no client URLs. */
export interface ListedMember {
  readonly id: string;
  readonly name: string;
  readonly peerURLs: readonly string[];
  readonly clientURLs: readonly string[];
  readonly isLearner: boolean;
}

/** One member's view of the membership. */
export interface MemberListing {
  readonly clusterId: string;
  /** The member that answered. */
  readonly memberId: string;
  readonly members: readonly ListedMember[];
}

/** Everything one round learned from one endpoint. */
export interface EndpointObservation {
  readonly target: ProbeTarget;
  readonly status: Outcome<MemberStatus>;
  readonly health: Outcome<HealthRead>;
  readonly memberList: Outcome<MemberListing>;
  /** The cluster-wide alarm list, asked of one endpoint per round; null where it was not asked. */
  readonly alarmList: Outcome<readonly AlarmEntry[]> | null;
}

/** The raw facts of one probe round, the only input of the verdict besides thresholds and now. */
export interface RoundObservations {
  /** Epoch milliseconds when the round started. */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly endpoints: readonly EndpointObservation[];
  /** The membership the previous round settled on, used when no member list answers now. */
  readonly previousMembers: readonly ListedMember[] | null;
  /** What a Kubernetes mode learnt this round; null in static mode. */
  readonly kube: KubeFacts | null;
}

/** A control-plane node as the Kubernetes API reports it. */
export interface NodeFacts {
  readonly name: string;
  /** Its Ready condition is True. */
  readonly ready: boolean;
  readonly internalIP: string | null;
  /** Epoch milliseconds of metadata.creationTimestamp. */
  readonly createdAt: number;
}

/** An etcd static pod as the Kubernetes API reports it. */
export interface PodFacts {
  readonly name: string;
  readonly namespace: string;
  readonly nodeName: string | null;
  /** Its Ready condition is True. */
  readonly ready: boolean;
  readonly phase: string;
  /** kubeadm's `kubeadm.kubernetes.io/etcd.advertise-client-urls` annotation, when present. */
  readonly advertiseClientUrl: string | null;
}

/** How a Kubernetes mode reaches members: through the API server's port-forward, or straight to the node. */
export type Transport = 'port-forward' | 'direct';

/** What a Kubernetes mode learnt about the cluster in one round. */
export interface KubeFacts {
  readonly transport: Transport;
  /** What was probed, for reports: `namespace/name` of a Cluster API Cluster, or the API server's URL. */
  readonly cluster: string;
  readonly nodes: readonly NodeFacts[];
  readonly pods: readonly PodFacts[];
  /** Nodes and pods are from this round; false when they are the last known ones, kept after a failed list. */
  readonly fresh: boolean;
  /** Why the Kubernetes API could not be used this round (layer kube-api), or null. */
  readonly apiError: ProbeError | null;
  /** Nodes of a fresh listing not probed: names that are not DNS subdomains, and those past the member bound. */
  readonly nodeBounds?: { readonly invalidNames: number; readonly leftOut: number; readonly max: number };
}
