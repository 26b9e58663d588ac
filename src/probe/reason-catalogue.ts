/** How much a reason weighs: `unhealthy` and `degraded` set the status; `info` never changes it. */
export type Severity = 'unhealthy' | 'degraded' | 'info';

/** Every reason the verdict can give. */
export type ReasonCode =
  | 'NO_MEMBER_REACHABLE'
  | 'QUORUM_LOST'
  | 'NO_LEADER'
  | 'ALARM_NOSPACE'
  | 'ALARM_CORRUPT'
  | 'CLUSTER_ID_MISMATCH'
  | 'MEMBER_UNREACHABLE'
  | 'MEMBER_UNHEALTHY'
  | 'MEMBER_NOT_PROBED'
  | 'UNSTARTED_MEMBER'
  | 'MEMBER_LIST_MISMATCH'
  | 'MEMBERSHIP_UNKNOWN'
  | 'LEADER_DISAGREEMENT'
  | 'DB_QUOTA_HIGH'
  | 'RAFT_APPLY_LAG'
  | 'MEMBER_BEHIND'
  | 'LEARNER_PRESENT'
  | 'VERSION_SKEW'
  | 'DB_FRAGMENTED'
  | 'KUBE_API_UNREACHABLE'
  | 'KUBE_API_REFUSED'
  | 'MEMBER_WITHOUT_NODE'
  | 'NODE_WITHOUT_MEMBER'
  | 'ETCD_POD_NOT_READY';

/** A reason's fixed parts: its weight and what an operator does next. */
export interface ReasonEntry {
  readonly severity: Severity;
  readonly hint: string;
}

/** The catalogue: one entry per code, so that a code always means the same thing and carries the same advice. */
export const REASONS: Readonly<Record<ReasonCode, ReasonEntry>> = {
  NO_MEMBER_REACHABLE: {
    severity: 'unhealthy',
    hint: "Check that etcd runs and that this service reaches it: the network path and firewall, ETCD_PROBE_ENDPOINTS, and the TLS files (each endpoint's error says which).",
  },
  QUORUM_LOST: {
    severity: 'unhealthy',
    hint: 'Do not scale or roll out the control plane. Bring the failed members back (start etcd, fix its disk or network) until a majority answers; restore from a snapshot only as the last resort.',
  },
  NO_LEADER: {
    severity: 'unhealthy',
    hint: 'An election is under way or the members cannot reach each other: check peer connectivity (port 2380), disk latency (etcd_disk_wal_fsync_duration_seconds) and clocks; if it lasts, treat it as quorum loss.',
  },
  ALARM_NOSPACE: {
    severity: 'unhealthy',
    hint: "etcd refuses every write. Compact the keyspace (etcdctl compact <current revision>), defragment every member (etcdctl defrag --cluster), then clear the alarm (etcdctl alarm disarm); raise --quota-backend-bytes if the data really grew.",
  },
  ALARM_CORRUPT: {
    severity: 'unhealthy',
    hint: 'Stop writes. Find the divergent member (etcdctl endpoint hashkv --cluster), remove it and add it back with an empty data dir or restore a good snapshot; disarm only afterwards.',
  },
  CLUSTER_ID_MISMATCH: {
    severity: 'unhealthy',
    hint: 'An endpoint belongs to another etcd cluster: fix ETCD_PROBE_ENDPOINTS, or the member if it joined the wrong cluster (its --initial-cluster settings).',
  },
  MEMBER_UNREACHABLE: {
    severity: 'degraded',
    hint: "Check that etcd runs on that member (systemctl status etcd, or its static pod), that its client port is reachable from here, and the TLS error if the message names one.",
  },
  MEMBER_UNHEALTHY: {
    severity: 'degraded',
    hint: "The member answers but cannot complete a read through consensus: check its peer connectivity to the leader, its disk latency and its logs.",
  },
  MEMBER_NOT_PROBED: {
    severity: 'degraded',
    hint: "Add the member's client URL to ETCD_PROBE_ENDPOINTS, or set ETCD_PROBE_DISCOVER=true, so that its health is known.",
  },
  UNSTARTED_MEMBER: {
    severity: 'degraded',
    hint: 'A member was added but never started: start it (with --initial-cluster-state existing) or remove it (etcdctl member remove <id>). Until then it counts towards quorum but cannot vote.',
  },
  MEMBER_LIST_MISMATCH: {
    severity: 'degraded',
    hint: 'Membership is changing or a member has a stale view: let the change finish; if it persists, compare etcdctl member list on each endpoint.',
  },
  MEMBERSHIP_UNKNOWN: {
    severity: 'degraded',
    hint: "No member answered Cluster.MemberList and no earlier round knew the membership, so quorum cannot be counted: check the members' logs and the client certificate's permissions.",
  },
  LEADER_DISAGREEMENT: {
    severity: 'degraded',
    hint: 'Members follow different leaders: an election is under way or a member is partitioned; check peer connectivity if it lasts more than a few seconds.',
  },
  DB_QUOTA_HIGH: {
    severity: 'degraded',
    hint: 'Compact and defragment before the NOSPACE alarm stops all writes, or raise --quota-backend-bytes (and ETCD_PROBE_QUOTA_BYTES with it).',
  },
  RAFT_APPLY_LAG: {
    severity: 'degraded',
    hint: "The member applies entries slower than it commits them and rejects proposals beyond 5000 pending ('too many requests'): check its disk and CPU, and reduce write load.",
  },
  MEMBER_BEHIND: {
    severity: 'degraded',
    hint: "The follower trails the leader's log: check its disk latency and its network to the leader; it catches up, or the leader sends it a snapshot.",
  },
  LEARNER_PRESENT: {
    severity: 'info',
    hint: 'Promote the learner once it has caught up with the leader (etcdctl member promote <id>).',
  },
  VERSION_SKEW: {
    severity: 'info',
    hint: 'Expected during an upgrade; finish upgrading every member to one version.',
  },
  DB_FRAGMENTED: {
    severity: 'info',
    hint: 'Defragment the member to return the free pages to the filesystem (etcdctl defrag --endpoints <its URL>), one member at a time.',
  },
  KUBE_API_UNREACHABLE: {
    // Unhealthy through a port-forward (no path to etcd at all); the verdict lowers it to degraded in direct mode.
    severity: 'unhealthy',
    hint: "Check the workload cluster's API server (is it running, does the kubeconfig's server URL reach it, is its certificate trusted); in port-forward mode etcd cannot be reached without it, so etcd's own health is unknown.",
  },
  KUBE_API_REFUSED: {
    severity: 'unhealthy',
    hint: 'The API server answered but refused: check the credentials and their RBAC (nodes get/list; pods get/list and pods/portforward create in kube-system; get on the named secrets) and that the named secrets exist.',
  },
  MEMBER_WITHOUT_NODE: {
    severity: 'degraded',
    hint: "kubeadm names each etcd member after its node: a member without a control-plane node is left over from a deleted machine (remove it: etcdctl member remove <id>) or the node selector misses its node.",
  },
  NODE_WITHOUT_MEMBER: {
    severity: 'degraded',
    hint: "The control-plane node has no etcd member: kubeadm join may have failed on it (see its kubelet and etcd pod logs), or the member was removed while the node stayed.",
  },
  ETCD_POD_NOT_READY: {
    severity: 'degraded',
    hint: "Look at the etcd static pod on that node: kubectl -n kube-system describe pod etcd-<node> and its logs; if the kubelet is down, the pod's state is stale (systemctl status kubelet on the node).",
  },
};
