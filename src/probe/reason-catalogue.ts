/** How much a reason weighs: `unhealthy` and `degraded` set the status; `info` never changes it. */
export type Severity = 'unhealthy' | 'degraded' | 'info';

/** Every reason the verdict can give. */
export type ReasonCode =
  | 'NO_MEMBER_REACHABLE'
  | 'QUORUM_LOST'
  | 'NO_LEADER'
  | 'QUORUM_MARGIN_UNKNOWN'
  | 'ALARM_NOSPACE'
  | 'ALARM_CORRUPT'
  | 'CLUSTER_ID_MISMATCH'
  | 'MEMBER_UNREACHABLE'
  | 'MEMBER_UNHEALTHY'
  | 'MEMBER_NOT_PROBED'
  | 'MEMBER_ID_MISMATCH'
  | 'UNSTARTED_MEMBER'
  | 'MEMBER_LIST_MISMATCH'
  | 'MEMBERSHIP_UNKNOWN'
  | 'LEADER_DISAGREEMENT'
  | 'FREQUENT_LEADER_CHANGES'
  | 'MEMBER_FLAPPING'
  | 'MEMBER_STALLED'
  | 'DB_QUOTA_HIGH'
  | 'DB_QUOTA_EXHAUSTION_SOON'
  | 'RAFT_APPLY_LAG'
  | 'MEMBER_BEHIND'
  | 'LEARNER_PRESENT'
  | 'LEADER_STOP_COSTS_ELECTION'
  | 'VERSION_SKEW'
  | 'DB_FRAGMENTED'
  | 'KUBE_API_UNREACHABLE'
  | 'KUBE_API_REFUSED'
  | 'KUBE_API_NOT_ALLOWED'
  | 'MEMBER_WITHOUT_NODE'
  | 'NODE_WITHOUT_MEMBER'
  | 'TOO_MANY_MEMBERS'
  | 'INVALID_NODE_NAME'
  | 'ETCD_POD_NOT_READY'
  | 'DATA_DIVERGED'
  | 'DATA_NOT_COMPARED';

/** A reason's fixed parts: its weight, the evidence that gives it, and what an operator does next. */
export interface ReasonEntry {
  readonly severity: Severity;
  /** What a round must observe for this reason, for the reason reference (docs/reasons.md). */
  readonly when: string;
  /** Why the severity is what it is, where that is a judgement call worth explaining. */
  readonly why?: string;
  readonly hint: string;
  /**
   * The finding reads what recent rounds saw (events, a trend), not what is wrong now: it comes after the
   * reasons of its severity that are (people on call read the first card). See reasonOrder.
   */
  readonly fromHistory?: true;
}

/** The catalogue: one entry per code, so that a code always means the same thing and carries the same advice. */
export const REASONS: Readonly<Record<ReasonCode, ReasonEntry>> = {
  NO_MEMBER_REACHABLE: {
    severity: 'unhealthy',
    when: "No endpoint of this cluster answered Maintenance.Status this round; the message lists each endpoint's error.",
    hint: "Check that etcd runs and that this service reaches it: the network path and firewall, ETCD_PROBE_ENDPOINTS, and the TLS files (each endpoint's error says which).",
  },
  QUORUM_LOST: {
    severity: 'unhealthy',
    when: 'No linearizable read passed this round, and either fewer than a majority of the voting members answered Status at all, or a majority answers but no round has confirmed a leader for longer than `ETCD_PROBE_ELECTION_GRACE` (a partition that no election can end). A round in which any read passed never gives it.',
    hint: 'Do not scale or roll out the control plane. Bring the failed members back (start etcd, fix its disk, its peer network on port 2380) until a majority runs and reaches each other; if the members may be up but unreachable only from etcd-probe, check them from another host first (etcdctl endpoint status --cluster). Restore from a snapshot only as the last resort.',
  },
  NO_LEADER: {
    severity: 'degraded',
    when: 'No linearizable read passed this round, but a majority of the voting members answers Status: the leader they name stopped answering, none of them knows a leader, or the leader they follow cannot confirm reads. A leader was last confirmed less than `ETCD_PROBE_ELECTION_GRACE` ago (or this service has watched for less than that); past that it becomes `QUORUM_LOST`.',
    why: 'A leader election: a majority is up and reachable, so etcd elects a new leader within its election timeout (1 s by default) without anyone acting. Writes and linearizable reads pause for that long, but nothing is lost and taking etcd out of a load balancer would not help (every member is in the same election). So it is degraded: the quorum policy still answers 200, the strict policy (rollout gates) 503. If no leader emerges within the grace, the members cannot reach each other and the reason becomes QUORUM_LOST (unhealthy).',
    hint: 'An election is under way: wait a few seconds. If it repeats or lasts, check the peer network between the members (port 2380), the disk latency of the members (etcd_disk_wal_fsync_duration_seconds) and the log of the member that stopped answering.',
  },
  QUORUM_MARGIN_UNKNOWN: {
    severity: 'degraded',
    when: 'A linearizable read passed this round (so a leader holds a quorum), but fewer voting members than a quorum answered etcd-probe and passed their read: the others may be down, or only unreachable from where etcd-probe runs.',
    why: 'The read proves that the cluster serves, so it is not unhealthy; but how many more members may fail is unknown, so it is not healthy either.',
    hint: 'The cluster has quorum now. The members named may be down, or only unreachable from etcd-probe (a firewall, a NetworkPolicy, routing, or the API server port-forward): check them from another host (etcdctl endpoint status --cluster) before concluding they are down, and do not take another member down until you know.',
  },
  ALARM_NOSPACE: {
    severity: 'unhealthy',
    when: "The alarm list (or, when it cannot be read, a member's Status `errors`) holds NOSPACE: etcd refuses every write.",
    hint: "etcd refuses every write. Compact the keyspace (etcdctl compact <current revision>), defragment every member (etcdctl defrag --cluster), then clear the alarm (etcdctl alarm disarm); raise --quota-backend-bytes if the data really grew.",
  },
  ALARM_CORRUPT: {
    severity: 'unhealthy',
    when: "The alarm list (or a member's Status `errors`) holds CORRUPT.",
    hint: 'Stop writes. Find the divergent member (etcdctl endpoint hashkv --cluster), remove it and add it back with an empty data dir or restore a good snapshot; disarm only afterwards.',
  },
  CLUSTER_ID_MISMATCH: {
    severity: 'unhealthy',
    when: 'An endpoint answers with another cluster ID than the majority of endpoints.',
    hint: 'An endpoint belongs to another etcd cluster: fix ETCD_PROBE_ENDPOINTS, or the member if it joined the wrong cluster (its --initial-cluster settings).',
  },
  MEMBER_UNREACHABLE: {
    severity: 'degraded',
    when: 'A member (or a configured endpoint that stands for none) did not answer Status: refused, timed out, a TLS or port-forward error.',
    hint: "Check that etcd runs on that member (systemctl status etcd, or its static pod), that its client port is reachable from here, and the TLS error if the message names one.",
  },
  MEMBER_UNHEALTHY: {
    severity: 'degraded',
    when: 'A member answers Status, but its linearizable read failed (it cannot reach a leader with a quorum, or rejects requests).',
    hint: "The member answers but cannot complete a read through consensus: check its peer connectivity to the leader, its disk latency and its logs.",
  },
  MEMBER_NOT_PROBED: {
    severity: 'degraded',
    when: 'A member in the membership that no probed endpoint reaches (discovery off and its URL not configured).',
    hint: "Add the member's client URL to ETCD_PROBE_ENDPOINTS, or set ETCD_PROBE_DISCOVER=true, so that its health is known.",
  },
  MEMBER_ID_MISMATCH: {
    severity: 'degraded',
    when: "Where a member should answer (one of its advertised client URLs, or the etcd of the node named like it) another member answered. That answer is not trusted for either member, so the expected member's health is unknown.",
    hint: "Something other than the expected member answers at its address: a stale DNS record or IP reuse, a load balancer or NAT in front of the member, a wrong --advertise-client-urls, or (Kubernetes modes) the wrong pod behind the node's address. Compare etcdctl member list with what listens there.",
  },
  UNSTARTED_MEMBER: {
    severity: 'degraded',
    when: 'A member is listed without a name or client URLs: added but never started. It counts towards quorum but cannot vote.',
    hint: 'A member was added but never started: start it (with --initial-cluster-state existing) or remove it (etcdctl member remove <id>). Until then it counts towards quorum but cannot vote.',
  },
  MEMBER_LIST_MISMATCH: {
    severity: 'degraded',
    when: 'Members report different memberships, or an endpoint answers as a member the membership does not list.',
    hint: 'Membership is changing or a member has a stale view: let the change finish; if it persists, compare etcdctl member list on each endpoint.',
  },
  MEMBERSHIP_UNKNOWN: {
    severity: 'degraded',
    when: 'Members answer Status, but none answered MemberList and no earlier round knew the membership.',
    hint: "No member answered Cluster.MemberList and no earlier round knew the membership, so quorum cannot be counted: check the members' logs and the client certificate's permissions.",
  },
  LEADER_DISAGREEMENT: {
    severity: 'degraded',
    when: 'A read passed, but the members that answered follow different leaders (or some know none).',
    hint: 'Members follow different leaders: an election is under way or a member is partitioned; check peer connectivity if it lasts more than a few seconds.',
  },
  FREQUENT_LEADER_CHANGES: {
    severity: 'degraded',
    fromHistory: true,
    when: "Recent rounds saw 4 or more leader elections within 15 minutes, as the etcd monitoring mixin alerts (etcdHighNumberOfLeaderChanges; fixed, not a setting): each change of leader seen between rounds. A raft term jump under the same leader is not one (etcd 3.4's lone survivor of a lost quorum raises the term with every failed campaign), nor is the change that ends a lost quorum (QUORUM_LOST reported that outage); /history lists both, as `term` and `afterQuorumLoss`.",
    hint: "Leaders that keep changing while quorum holds point at slow disks or a flaky network long before anything fails: check etcd_disk_wal_fsync_duration_seconds and etcd_network_peer_round_trip_time_seconds on every member, CPU starvation of the etcd processes, and that --heartbeat-interval and --election-timeout suit the network's round trip.",
  },
  MEMBER_FLAPPING: {
    severity: 'degraded',
    fromHistory: true,
    when: 'A member changed state (healthy, unhealthy, unreachable) 4 or more times within 10 minutes (fixed: a restart is 2 changes, so this is a member that went down twice). Read failures during an election or a lost quorum are the cluster\'s, not counted against each member.',
    hint: "A member that keeps going down and coming back is crash-looping (its logs, its static pod's restarts, OOM kills), losing its disk or its network to the leader intermittently: look at it before it stays down, and do not take another member down meanwhile. Its last failure is in GET /history.",
  },
  MEMBER_STALLED: {
    severity: 'degraded',
    when: "A member answered, but its raft applied index stayed the same over the last 3 rounds (fixed), spanning at least 10 s, while the leader's advanced (every round adds entries: the alarm list goes through raft).",
    hint: "The member commits no more entries or cannot apply them: a hung apply loop, a full or failing disk, or a backend blocked by a long defragmentation. Check its disk and logs; if it does not move again, restart it (the others keep quorum).",
  },
  DB_QUOTA_HIGH: {
    severity: 'degraded',
    when: "A member's database file is at least 80 % of `ETCD_PROBE_QUOTA_BYTES` (the message says when it is at least 95 %), and NOSPACE is not raised yet: once it is, ALARM_NOSPACE says so once instead of a forecast per member.",
    hint: 'Compact and defragment before the NOSPACE alarm stops all writes, or raise --quota-backend-bytes (and ETCD_PROBE_QUOTA_BYTES with it).',
  },
  DB_QUOTA_EXHAUSTION_SOON: {
    severity: 'info',
    fromHistory: true,
    when: "A member's database in use (Status dbSizeInUse) is at least 50 % of `ETCD_PROBE_QUOTA_BYTES`, has grown along a steady line over at least a quarter of `ETCD_PROBE_QUOTA_ETA_WINDOW` (6h) in 10 rounds or more, and at that rate reaches the quota within `ETCD_PROBE_QUOTA_ETA_THRESHOLD` (24h). The rule in full is in docs/metrics-and-alerts.md.",
    why: 'A forecast, not a fault: nothing fails yet, so it does not fail a strict gate or a rollout; DB_QUOTA_HIGH (degraded) still comes at 80 %, ALARM_NOSPACE (unhealthy) when etcd refuses writes, and the alert EtcdDatabaseQuotaExhaustionSoon pages before either.',
    hint: 'Find what writes the growth (etcdctl get --prefix --keys-only, counted per prefix; Kubernetes: objects per resource) and stop it, make sure compaction runs (kube-apiserver compacts every 5 minutes), then defragment; or raise --quota-backend-bytes (and ETCD_PROBE_QUOTA_BYTES with it).',
  },
  RAFT_APPLY_LAG: {
    severity: 'degraded',
    when: "A member's raft index minus its applied index exceeds 5000, where etcd starts rejecting proposals.",
    hint: "The member applies entries slower than it commits them and rejects proposals beyond 5000 pending ('too many requests'): check its disk and CPU, and reduce write load.",
  },
  MEMBER_BEHIND: {
    severity: 'degraded',
    when: "A follower's raft index trails the leader's by more than `ETCD_PROBE_MAX_RAFT_GAP`.",
    hint: "The follower trails the leader's log: check its disk latency and its network to the leader; it catches up, or the leader sends it a snapshot.",
  },
  LEARNER_PRESENT: {
    severity: 'info',
    when: 'A learner is in the membership.',
    hint: 'Promote the learner once it has caught up with the leader (etcdctl member promote <id>).',
  },
  LEADER_STOP_COSTS_ELECTION: {
    severity: 'info',
    when: 'Only in disruption answers (`/disruption`): the member to stop or remove is the leader. It keeps quorum, but costs an election.',
    hint: 'Move the leadership away first, so that writes do not pause for an election: etcdctl move-leader <hex ID of a healthy follower> --endpoints <the leader\'s URL>; then stop or remove the member.',
  },
  VERSION_SKEW: {
    severity: 'info',
    when: 'The members that answered run different etcd versions.',
    hint: 'Expected during an upgrade; finish upgrading every member to one version.',
  },
  DB_FRAGMENTED: {
    severity: 'info',
    when: 'A member uses less than half of its database file and more than 100 MiB could be reclaimed.',
    hint: 'Defragment the member to return the free pages to the filesystem (etcdctl defrag --endpoints <its URL>), one member at a time.',
  },
  KUBE_API_UNREACHABLE: {
    // Unhealthy through a port-forward (no path to etcd at all); the verdict lowers it to degraded in direct mode.
    severity: 'unhealthy',
    when: 'Kubernetes modes: the API server could not be reached (network, deadline, TLS); reported once, not per member. Unhealthy through a port-forward (etcd cannot be reached without it), degraded in `direct` mode.',
    hint: "Check the workload cluster's API server (is it running, does the kubeconfig's server URL reach it, is its certificate trusted); in port-forward mode etcd cannot be reached without it, so etcd's own health is unknown.",
  },
  KUBE_API_REFUSED: {
    severity: 'unhealthy',
    when: 'Kubernetes modes: the API server answered but refused (401/403, a missing Secret, a kubeconfig in a Secret that is malformed or uses a refused field); degraded in `direct` mode.',
    hint: 'The API server answered but refused: check the credentials and their RBAC (nodes get/list; pods get/list and pods/portforward create in kube-system; get on the named secrets) and that the named secrets exist.',
  },
  KUBE_API_NOT_ALLOWED: {
    severity: 'unhealthy',
    when: "Cluster API modes: the server of the Cluster's `<name>-kubeconfig` Secret is not its `spec.controlPlaneEndpoint` (host and port), or the Cluster has none; nothing was sent to that server, so etcd's health is unknown.",
    why: "As KUBE_API_UNREACHABLE through a port-forward: etcd is reached only through that API server, so nothing this round tells whether the cluster has quorum. The kubeconfig is not used because whoever may write the Secret is not necessarily an operator: the service dials only the address the Cluster declares.",
    hint: "Make the kubeconfig's server name the Cluster's spec.controlPlaneEndpoint (Cluster API writes it so; kubectl get cluster <name> -o jsonpath='{.spec.controlPlaneEndpoint}'), or find out who changed the Secret.",
  },
  MEMBER_WITHOUT_NODE: {
    severity: 'degraded',
    when: 'An etcd member with no control-plane node of its name (kubeadm names members after nodes).',
    hint: "kubeadm names each etcd member after its node: a member without a control-plane node is left over from a deleted machine (remove it: etcdctl member remove <id>) or the node selector misses its node.",
  },
  TOO_MANY_MEMBERS: {
    severity: 'degraded',
    when: 'Kubernetes modes: the workload cluster lists more control-plane nodes than `ETCD_PROBE_MAX_MEMBERS` (16); the first ones by name are probed, the others are not.',
    why: 'Degraded, not unhealthy: the probed members may be fine, but the members not probed are unknown, and an etcd cluster has at most 7 voting members, so the listing itself is wrong.',
    hint: "Check the workload cluster's control-plane nodes (kubectl get nodes -l node-role.kubernetes.io/control-plane) and ETCD_PROBE_NODE_SELECTOR: an etcd cluster has 3, 5 or 7 members (raise ETCD_PROBE_MAX_MEMBERS only if the listing is right).",
  },
  INVALID_NODE_NAME: {
    severity: 'degraded',
    when: 'Kubernetes modes: a listed control-plane node has a name that is not a DNS subdomain (lowercase RFC 1123, at most 253 characters); it is not probed and its name is not repeated.',
    hint: "The workload cluster's API listed a node Kubernetes would not accept: check that the kubeconfig reaches a real API server.",
  },
  NODE_WITHOUT_MEMBER: {
    severity: 'degraded',
    when: 'A control-plane node older than `ETCD_PROBE_NODE_GRACE` with no etcd member of its name.',
    hint: "The control-plane node has no etcd member: kubeadm join may have failed on it (see its kubelet and etcd pod logs), or the member was removed while the node stayed.",
  },
  ETCD_POD_NOT_READY: {
    severity: 'degraded',
    when: "The etcd static pod on a member's node is missing or not Ready.",
    hint: "Look at the etcd static pod on that node: kubectl -n kube-system describe pod etcd-<node> and its logs; if the kubelet is down, the pod's state is stale (systemctl status kubelet on the node).",
  },
  DATA_DIVERGED: {
    severity: 'degraded',
    when: "The divergence check (every `ETCD_PROBE_DATA_CHECK_INTERVAL`) asked every member's HashKV at one revision all had applied, from the same compact revision, and this member's hash differed from the majority's in two comparisons in a row. Without a majority hash (two members, 1 against 1) the reason names no member.",
    why: "Degraded, not unhealthy: the majority still agrees on one data set, so quorum holds and writes go on; but the member serves different data to whoever reads from it (serializable reads, watches, a leader it may become), so the cluster must not pass a strict gate (ETCD_PROBE_POLICY=strict answers 503). Two comparisons in a row, so that one odd answer never raises it alone.",
    hint: 'Do not let this member lead or serve reads: confirm with etcdctl endpoint hashkv --cluster (at the revision in /members), then remove the member and add it back with an empty data dir (etcdctl member remove / member add) so that it takes a snapshot from the leader. Keep its data dir for the postmortem; check the etcd version against the 3.5.0-3.5.2 data inconsistency bug.',
  },
  DATA_NOT_COMPARED: {
    severity: 'info',
    when: "The last divergence check could not compare this member's data: its Status or HashKV failed (timeout, compacted past the pinned revision), or it hashed from another compact revision than the others. Such a member is never called consistent.",
    hint: 'Usually passing (a compaction between pinning and hashing): the next check compares again. If it stays, read the message (a HashKV slower than ETCD_PROBE_DATA_CHECK_TIMEOUT on a large keyspace, or an unreachable member).',
  },
};
