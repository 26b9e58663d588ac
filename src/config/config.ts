/** Which verdicts make `/healthz/etcd` answer 503: `quorum` only unhealthy, `strict` degraded too. */
export type Policy = 'quorum' | 'strict';

/** The policies a caller may ask for. */
export const POLICIES: readonly Policy[] = ['quorum', 'strict'];

/** pino's levels, plus `silent`. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** The log levels accepted by ETCD_PROBE_LOG_LEVEL. */
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Where the HTTP listener binds. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** How members are found: static endpoints, a workload cluster's API, or a Cluster API Cluster. */
export type Mode = 'static' | 'kubeconfig' | 'capi';

/** How a Kubernetes mode reaches members: the API server's port-forward, or the node's address. */
export type Connect = 'port-forward' | 'direct';

/** The connect choices accepted by ETCD_PROBE_CONNECT. */
export const CONNECTS: readonly Connect[] = ['port-forward', 'direct'];

/** A namespaced Kubernetes object. */
export interface ObjectRef {
  readonly namespace: string;
  readonly name: string;
}

/** A host and port an API server is reached at (a Cluster's `spec.controlPlaneEndpoint`); host lowercase, IPv6 without brackets. */
export interface ApiEndpoint {
  readonly host: string;
  readonly port: number;
}

/**
 * One Cluster API Cluster. `controlPlaneEndpoint` is what its listing said (a fleet's entry; null: the
 * Cluster has none); absent when only the name is known (ETCD_PROBE_CAPI_CLUSTER=<namespace>/<name>), and
 * the Cluster is then read for it.
 */
export interface CapiClusterRef extends ObjectRef {
  readonly controlPlaneEndpoint?: ApiEndpoint | null;
}

/** Every Cluster API Cluster in the management cluster (`*`), or in one namespace (`<namespace>/*`). */
export interface CapiFleetRef {
  readonly fleet: true;
  /** null: every namespace. */
  readonly namespace: string | null;
}

/** ETCD_PROBE_CAPI_CLUSTER: one Cluster, or a fleet of them. */
export type CapiTarget = CapiClusterRef | CapiFleetRef;

/** Whether a Cluster API target names a fleet rather than one Cluster. */
export function isCapiFleet(target: CapiTarget | null): target is CapiFleetRef {
  return target !== null && 'fleet' in target;
}

/** Which share of a fleet a replica owns: `index` of `count` (ETCD_PROBE_SHARD=<index>/<count>). */
export interface ShardRef {
  readonly index: number;
  readonly count: number;
}

/** Where a kubeconfig comes from: a file, or the pod's own service account. */
export type KubeconfigRef = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'in-cluster' };

/**
 * How to reach the API server from inside a pod: what Kubernetes puts in every pod (the service's
 * address in KUBERNETES_SERVICE_HOST/PORT, the service account's CA and token files), read by the
 * resolver so that no library reads the environment itself.
 */
export interface InClusterAccess {
  readonly server: string;
  readonly caFile: string;
  readonly tokenFile: string;
}

/**
 * The cap on one cluster's history: a bound on memory, not a knob (the window, ETCD_PROBE_HISTORY_WINDOW,
 * is what a user chooses). At the history's estimate (probe/history/round-history.ts: 856 bytes a round
 * of 3 members) it holds 24 h of 5 s rounds, the longest window allowed; 5 members keep some 19 h.
 */
export const HISTORY_MAX_BYTES = 16 * 2 ** 20;

/** The fields of Config derived from the settings rather than set: no variable names them. */
export type DerivedKey = 'mode' | 'historyMaxBytes';

/**
 * The resolved configuration: every field set, validated and frozen. What the process serves (one
 * cluster, or a fleet and from where) is not here but in its Deployment, decided once beside it.
 */
export interface Config {
  /** etcd client URLs to probe, as given (deduplicated, in order). */
  readonly endpoints: readonly string[];
  /** PEM file of the CA that signs etcd's serving certificates; null: the system's roots. */
  readonly caFile: string | null;
  /** PEM client certificate presented to etcd; null: none. */
  readonly certFile: string | null;
  /** PEM private key of certFile; null: none. */
  readonly keyFile: string | null;
  readonly listen: ListenAddress;
  /** How long a probe round's result is served before the next request starts a new one. */
  readonly cacheTtlMs: number;
  /** Deadline of each etcd call. */
  readonly timeoutMs: number;
  readonly policy: Policy;
  /** Also probe every member's advertised client URL, like `etcdctl --cluster`. */
  readonly discover: boolean;
  /** etcd's backend quota (its --quota-backend-bytes), against which database size is judged. */
  readonly quotaBytes: number;
  /** How many raft entries a follower may trail the leader before MEMBER_BEHIND. */
  readonly maxRaftGap: number;
  /** How long a majority may answer without a proven leader before NO_LEADER becomes QUORUM_LOST. */
  readonly electionGraceMs: number;
  /** How far back /history reaches. */
  readonly historyWindowMs: number;
  /** Derived: the cap on the history's estimated memory, HISTORY_MAX_BYTES, or a Cluster API fleet cluster's share. */
  readonly historyMaxBytes: number;
  /** DB_QUOTA_EXHAUSTION_SOON when a member's quota ETA is under this. */
  readonly quotaEtaThresholdMs: number;
  /** How far back a member's database growth is fitted for its quota ETA. */
  readonly quotaEtaWindowMs: number;
  /** How often members' data are compared, in ms; 0 is off, null is the mode's default (5m, off in a fleet). */
  readonly dataCheckIntervalMs: number | null;
  /** Deadline of each member's HashKV in a data comparison. */
  readonly dataCheckTimeoutMs: number;
  readonly logLevel: LogLevel;
  /** Derived: capi when capiCluster is set, kubeconfig when kubeconfig is, else static (a fleet's own config; each of its clusters has its own). */
  readonly mode: Mode;
  /** The workload cluster's kubeconfig (kubeconfig mode). */
  readonly kubeconfig: KubeconfigRef | null;
  /** Label selector of the control-plane nodes (the legacy master label is accepted beside the default). */
  readonly nodeSelector: string;
  /** null: port-forward, except direct when the kubeconfig is in-cluster. Always port-forward in capi mode. */
  readonly connect: Connect | null;
  /** A Secret with etcd's client TLS (ca.crt, tls.crt, tls.key) in the workload cluster. */
  readonly tlsSecret: ObjectRef | null;
  /** The Cluster API Cluster to probe (capi mode); a fleet of them (`*`) is the Deployment, never this. */
  readonly capiCluster: CapiClusterRef | null;
  /** Cluster API modes: CIDRs the service never connects to with a kubeconfig from a Secret (after DNS). */
  readonly denyCidrs: readonly string[];
  /** The management cluster's kubeconfig; null: in-cluster. */
  readonly managementKubeconfig: KubeconfigRef | null;
  /** How old a control-plane node must be before it is NODE_WITHOUT_MEMBER. */
  readonly nodeGraceMs: number;
  /** Control-plane nodes probed at most per cluster in the Kubernetes modes (the first by name). */
  readonly maxMembers: number;
  /** File holding the bearer token that guards authRoutes; null: no route is guarded. */
  readonly authTokenFile: string | null;
  /** Route paths that need the bearer token when authTokenFile is set; each guards its sub-paths too. */
  readonly authRoutes: readonly string[];
  /** PEM serving certificate of the listener; null: plain HTTP. */
  readonly tlsCertFile: string | null;
  /** PEM private key of tlsCertFile. */
  readonly tlsKeyFile: string | null;
  /** PEM CA that client certificates must chain to (mTLS); null: no client certificate asked for. */
  readonly tlsClientCaFile: string | null;
  /** Open connections the listener accepts; further ones are closed at once, never answered 503. */
  readonly maxConnections: number;
  /** Open connections one remote address may hold; further ones from it are closed at once. */
  readonly maxConnectionsPerClient: number;
  /** The share of the fleet this replica owns (keeps warm, exports metrics for). */
  readonly shard: ShardRef;
  /** How often a fleet replica refreshes the clusters it owns, and re-lists a Cluster API fleet. */
  readonly fleetRefreshMs: number;
  /** Probe rounds in flight at once across the clusters of a fleet. */
  readonly maxRoundsInFlight: number;
  /** Whether a fleet's clusters keep their member connections open between rounds (else closed after each). */
  readonly holdConnections: boolean;
  /** Clusters a Cluster API fleet follows at most (the oldest kept). */
  readonly fleetMaxClusters: number;
  /** Clusters a Cluster API fleet follows at most in one namespace (the oldest kept). */
  readonly fleetMaxClustersPerNamespace: number;
  /** The memory budget of a Cluster API fleet's histories, shared by its clusters. */
  readonly fleetHistoryMaxBytes: number;
  /** How long after SIGTERM the service keeps serving with /readyz failing, before it stops listening. */
  readonly shutdownDelayMs: number;
}
