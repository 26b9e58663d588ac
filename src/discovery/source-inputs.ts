import type { Config, InClusterAccess } from '../config/config.ts';
import type { TlsProvider } from '../tls/tls-provider.ts';

/** What a member source is made from besides the config. */
export interface SourceInputs {
  readonly config: Config;
  /** etcd client TLS from files (static and kubeconfig modes), re-read when they change. */
  readonly tls: TlsProvider;
  /** The API server and service-account files for `in-cluster` settings (the resolver's inCluster). */
  readonly inCluster?: InClusterAccess | null;
  /** Epoch ms. */
  readonly now: () => number;
  /** How often secrets are re-read in the Kubernetes modes; SECRET_REFRESH_MS by default. */
  readonly secretRefreshMs?: number;
}
