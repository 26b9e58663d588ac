import { CONNECTS, LOG_LEVELS, POLICIES, type Config } from './config.ts';
import { DEFAULT_GUARDED_ROUTES, ROUTE_PATHS } from './route-paths.ts';
import {
  parseBoolean,
  parseBytes,
  parseDuration,
  parseEndpoints,
  parseInteger,
  parseKubeconfigRef,
  parseLabelSelector,
  parseListen,
  parseObjectRef,
  parseOneOf,
  parseRoutePaths,
} from './value-parsers.ts';

/** The settings a user sets; `mode` is derived from them. */
export type SettingKey = Exclude<keyof Config, 'mode'>;

/** Every setting's value: decoded from what the user gave, or its default. */
export type Settings = Omit<Config, 'mode'>;

/** The variable or flag each value the user gave came from, e.g. `{certFile: '--cert'}`. */
export type Sources = Readonly<Partial<Record<SettingKey, string>>>;

interface SettingSpec<K extends SettingKey> {
  readonly key: K;
  readonly env: string;
  readonly flag: string;
  readonly help: string;
  readonly parse: (raw: string) => Config[K];
}

/**
 * One setting: its environment variable, its flag, its default and how its text is decoded. The default
 * is written as a user would write it (`fallback`), or, for an optional setting, is `absent` (null).
 */
export type Setting<K extends SettingKey = SettingKey> = SettingSpec<K> &
  ({ readonly fallback: string } | { readonly fallback: null; readonly absent: Config[K] });

const GIB = 2 ** 30;

/** Every setting by key, in the order the help text and README list them; typed per key. */
export const SETTING_TABLE: { readonly [K in SettingKey]: Setting<K> } = {
  endpoints: {
    key: 'endpoints',
    env: 'ETCD_PROBE_ENDPOINTS',
    flag: 'endpoints',
    fallback: 'http://127.0.0.1:2379',
    help: 'comma-separated etcd client URLs (scheme://host:port)',
    parse: parseEndpoints,
  },
  caFile: {
    key: 'caFile',
    env: 'ETCD_PROBE_CACERT',
    flag: 'cacert',
    fallback: null,
    absent: null,
    help: "PEM file of the CA that signed etcd's serving certificates (default: system roots)",
    parse: (raw) => raw,
  },
  certFile: {
    key: 'certFile',
    env: 'ETCD_PROBE_CERT',
    flag: 'cert',
    fallback: null,
    absent: null,
    help: 'PEM client certificate presented to etcd',
    parse: (raw) => raw,
  },
  keyFile: {
    key: 'keyFile',
    env: 'ETCD_PROBE_KEY',
    flag: 'key',
    fallback: null,
    absent: null,
    help: 'PEM private key of the client certificate',
    parse: (raw) => raw,
  },
  listen: {
    key: 'listen',
    env: 'ETCD_PROBE_LISTEN',
    flag: 'listen',
    fallback: '0.0.0.0:8080',
    help: 'address of the HTTP listener (host:port)',
    parse: parseListen,
  },
  cacheTtlMs: {
    key: 'cacheTtlMs',
    env: 'ETCD_PROBE_CACHE_TTL',
    flag: 'cache-ttl',
    fallback: '5s',
    help: 'how long one probe round answers all requests (0s to 1h)',
    parse: (raw) => parseDuration(raw, 0, 3_600_000),
  },
  timeoutMs: {
    key: 'timeoutMs',
    env: 'ETCD_PROBE_TIMEOUT',
    flag: 'timeout',
    fallback: '2s',
    help: 'deadline of each etcd call (10ms to 60s)',
    parse: (raw) => parseDuration(raw, 10, 60_000),
  },
  policy: {
    key: 'policy',
    env: 'ETCD_PROBE_POLICY',
    flag: 'policy',
    fallback: 'quorum',
    help: 'default policy of /healthz/etcd: quorum (503 when unhealthy) or strict (503 when degraded too)',
    parse: (raw) => parseOneOf(raw, POLICIES),
  },
  discover: {
    key: 'discover',
    env: 'ETCD_PROBE_DISCOVER',
    flag: 'discover',
    fallback: 'true',
    help: "also probe every member's advertised client URL from the member list",
    parse: parseBoolean,
  },
  quotaBytes: {
    key: 'quotaBytes',
    env: 'ETCD_PROBE_QUOTA_BYTES',
    flag: 'quota-bytes',
    fallback: '2GiB',
    help: "etcd's --quota-backend-bytes, to judge database size against",
    parse: (raw) => parseBytes(raw, 1, 1024 * GIB),
  },
  maxRaftGap: {
    key: 'maxRaftGap',
    env: 'ETCD_PROBE_MAX_RAFT_GAP',
    flag: 'max-raft-gap',
    fallback: '1000',
    help: "raft entries a follower may trail the leader's index before MEMBER_BEHIND",
    parse: (raw) => parseInteger(raw, 1, 1_000_000_000),
  },
  electionGraceMs: {
    key: 'electionGraceMs',
    env: 'ETCD_PROBE_ELECTION_GRACE',
    flag: 'election-grace',
    fallback: '10s',
    help: 'how long a majority may answer without a leader (NO_LEADER, an election) before it counts as QUORUM_LOST (1s to 10m)',
    parse: (raw) => parseDuration(raw, 1000, 600_000),
  },
  historyWindowMs: {
    key: 'historyWindowMs',
    env: 'ETCD_PROBE_HISTORY_WINDOW',
    flag: 'history-window',
    fallback: '1h',
    help: 'how far back /history reaches (1m to 24h); kept in memory only, lost on restart',
    parse: (raw) => parseDuration(raw, 60_000, 24 * 3_600_000),
  },
  historyMaxBytes: {
    key: 'historyMaxBytes',
    env: 'ETCD_PROBE_HISTORY_MAX_BYTES',
    flag: 'history-max-bytes',
    fallback: '16MiB',
    help: 'cap on the estimated memory of the history; the oldest rounds go first (64KiB to 1GiB)',
    parse: (raw) => parseBytes(raw, 64 * 1024, GIB),
  },
  leaderChangesMax: {
    key: 'leaderChangesMax',
    env: 'ETCD_PROBE_LEADER_CHANGES',
    flag: 'leader-changes',
    fallback: '4',
    help: 'leader elections within --leader-changes-window that make FREQUENT_LEADER_CHANGES (1 to 1000)',
    parse: (raw) => parseInteger(raw, 1, 1000),
  },
  leaderChangesWindowMs: {
    key: 'leaderChangesWindowMs',
    env: 'ETCD_PROBE_LEADER_CHANGES_WINDOW',
    flag: 'leader-changes-window',
    fallback: '15m',
    help: 'the window of FREQUENT_LEADER_CHANGES (1m to 24h)',
    parse: (raw) => parseDuration(raw, 60_000, 24 * 3_600_000),
  },
  flapChangesMax: {
    key: 'flapChangesMax',
    env: 'ETCD_PROBE_FLAP_CHANGES',
    flag: 'flap-changes',
    fallback: '4',
    help: "a member's state changes within --flap-window that make MEMBER_FLAPPING (2 to 1000)",
    parse: (raw) => parseInteger(raw, 2, 1000),
  },
  flapWindowMs: {
    key: 'flapWindowMs',
    env: 'ETCD_PROBE_FLAP_WINDOW',
    flag: 'flap-window',
    fallback: '10m',
    help: 'the window of MEMBER_FLAPPING (1m to 24h)',
    parse: (raw) => parseDuration(raw, 60_000, 24 * 3_600_000),
  },
  stallRounds: {
    key: 'stallRounds',
    env: 'ETCD_PROBE_STALL_ROUNDS',
    flag: 'stall-rounds',
    fallback: '3',
    help: "rounds over which a member's applied index may stay put while the leader's moves before MEMBER_STALLED (2 to 100)",
    parse: (raw) => parseInteger(raw, 2, 100),
  },
  logLevel: {
    key: 'logLevel',
    env: 'ETCD_PROBE_LOG_LEVEL',
    flag: 'log-level',
    fallback: 'info',
    help: `log level: ${LOG_LEVELS.join(', ')}`,
    parse: (raw) => parseOneOf(raw, LOG_LEVELS),
  },
  kubeconfig: {
    key: 'kubeconfig',
    env: 'ETCD_PROBE_KUBECONFIG',
    flag: 'kubeconfig',
    fallback: null,
    absent: null,
    help: "workload cluster's kubeconfig file, or in-cluster: find etcd through its control-plane nodes and etcd pods",
    parse: parseKubeconfigRef,
  },
  nodeSelector: {
    key: 'nodeSelector',
    env: 'ETCD_PROBE_NODE_SELECTOR',
    flag: 'node-selector',
    fallback: 'node-role.kubernetes.io/control-plane',
    help: 'label selector of the control-plane nodes (the default also matches node-role.kubernetes.io/master)',
    parse: parseLabelSelector,
  },
  connect: {
    key: 'connect',
    env: 'ETCD_PROBE_CONNECT',
    flag: 'connect',
    fallback: null,
    absent: null,
    help: "how to reach members in kubeconfig mode: port-forward (through the API server) or direct (node InternalIP:2379); default direct in-cluster, else port-forward",
    parse: (raw) => parseOneOf(raw, CONNECTS),
  },
  tlsSecret: {
    key: 'tlsSecret',
    env: 'ETCD_PROBE_TLS_SECRET',
    flag: 'tls-secret',
    fallback: null,
    absent: null,
    help: "namespace/name of a Secret in the workload cluster holding etcd client TLS (ca.crt, tls.crt, tls.key)",
    parse: parseObjectRef,
  },
  capiCluster: {
    key: 'capiCluster',
    env: 'ETCD_PROBE_CAPI_CLUSTER',
    flag: 'capi-cluster',
    fallback: null,
    absent: null,
    help: 'namespace/name of a Cluster API Cluster: reach its etcd the way KubeadmControlPlane does',
    parse: parseObjectRef,
  },
  managementKubeconfig: {
    key: 'managementKubeconfig',
    env: 'ETCD_PROBE_MANAGEMENT_KUBECONFIG',
    flag: 'management-kubeconfig',
    fallback: null,
    absent: null,
    help: "Cluster API mode: the management cluster's kubeconfig file (default: in-cluster)",
    parse: parseKubeconfigRef,
  },
  nodeGraceMs: {
    key: 'nodeGraceMs',
    env: 'ETCD_PROBE_NODE_GRACE',
    flag: 'node-grace',
    fallback: '2m',
    help: 'how old a control-plane node must be before lacking an etcd member counts (NODE_WITHOUT_MEMBER)',
    parse: (raw) => parseDuration(raw, 0, 24 * 3_600_000),
  },
  authTokenFile: {
    key: 'authTokenFile',
    env: 'ETCD_PROBE_AUTH_TOKEN_FILE',
    flag: 'auth-token-file',
    fallback: null,
    absent: null,
    help: 'file holding a bearer token that the routes of --auth-routes then require, and without which /healthz/etcd answers a summary (re-read when it changes; unusable: no token accepted)',
    parse: (raw) => raw,
  },
  authRoutes: {
    key: 'authRoutes',
    env: 'ETCD_PROBE_AUTH_ROUTES',
    flag: 'auth-routes',
    fallback: DEFAULT_GUARDED_ROUTES.join(','),
    help: `comma-separated routes guarded by the token (each covers its sub-paths); of ${ROUTE_PATHS.join(', ')}`,
    parse: (raw) => parseRoutePaths(raw, ROUTE_PATHS),
  },
  tlsCertFile: {
    key: 'tlsCertFile',
    env: 'ETCD_PROBE_TLS_CERT',
    flag: 'tls-cert',
    fallback: null,
    absent: null,
    help: "PEM serving certificate of the listener (HTTPS); re-read when it changes",
    parse: (raw) => raw,
  },
  tlsKeyFile: {
    key: 'tlsKeyFile',
    env: 'ETCD_PROBE_TLS_KEY',
    flag: 'tls-key',
    fallback: null,
    absent: null,
    help: 'PEM private key of the serving certificate',
    parse: (raw) => raw,
  },
  tlsClientCaFile: {
    key: 'tlsClientCaFile',
    env: 'ETCD_PROBE_TLS_CLIENT_CA',
    flag: 'tls-client-ca',
    fallback: null,
    absent: null,
    help: 'PEM CA that clients must present a certificate from (mTLS) on every route but /livez and /readyz; needs --tls-cert',
    parse: (raw) => raw,
  },
  maxConnections: {
    key: 'maxConnections',
    env: 'ETCD_PROBE_MAX_CONNECTIONS',
    flag: 'max-connections',
    fallback: '1024',
    help: 'open connections the listener accepts; more are closed at once (1 to 1000000)',
    parse: (raw) => parseInteger(raw, 1, 1_000_000),
  },
  maxConnectionsPerClient: {
    key: 'maxConnectionsPerClient',
    env: 'ETCD_PROBE_MAX_CONNECTIONS_PER_CLIENT',
    flag: 'max-connections-per-client',
    fallback: '64',
    help: 'open connections one client address may hold; more are closed at once (1 to 1000000)',
    parse: (raw) => parseInteger(raw, 1, 1_000_000),
  },
  shutdownDelayMs: {
    key: 'shutdownDelayMs',
    env: 'ETCD_PROBE_SHUTDOWN_DELAY',
    flag: 'shutdown-delay',
    fallback: '0s',
    help: 'after SIGTERM, keep serving this long with /readyz failing before closing the listener (0s to 60s)',
    parse: (raw) => parseDuration(raw, 0, 60_000),
  },
};

/** Every setting, in the order the help text and README list them. */
export const SETTINGS: readonly Setting[] = Object.values(SETTING_TABLE);
