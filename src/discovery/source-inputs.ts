import type { ClusterConfig } from '../config/cluster-config.ts';
import type { InClusterAccess } from '../config/config.ts';
import type { KubeConnection } from '../kube/kube-connection.ts';
import type { TlsProvider } from '../tls/tls-provider.ts';

/** What a member source is made from besides the config. */
export interface SourceInputs {
  readonly config: ClusterConfig;
  /** etcd client TLS from files (static and kubeconfig modes), re-read when they change. */
  readonly tls: TlsProvider;
  /** The API server and service-account files for `in-cluster` settings (the resolver's inCluster). */
  readonly inCluster?: InClusterAccess | null;
  /** Epoch ms. */
  readonly now: () => number;
  /**
   * The management cluster's connection when the caller shares one (a Cluster API fleet: one for all its
   * clusters); made from ETCD_PROBE_MANAGEMENT_KUBECONFIG otherwise.
   */
  readonly management?: KubeConnection;
  /** How often secrets are re-read in the Kubernetes modes; SECRET_REFRESH_MS by default. */
  readonly secretRefreshMs?: number;
}
