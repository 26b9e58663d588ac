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

/** The resolved configuration: every field set, validated and frozen. */
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
  readonly logLevel: LogLevel;
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
  /** How long after SIGTERM the service keeps serving with /readyz failing, before it stops listening. */
  readonly shutdownDelayMs: number;
}
