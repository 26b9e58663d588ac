import type { KubeConnection } from '../kube/kube-connection.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';

/** What a round needs to reach a workload cluster: its API, etcd's TLS material, and a generation that changes with either. */
export interface WorkloadCredentials {
  readonly connection: KubeConnection;
  readonly tls: TlsMaterial;
  /** Bumped whenever connection or tls changes, so that clients made with the old ones are replaced. */
  readonly generation: number;
}

/** How a Kubernetes mode gets (and refreshes) its workload credentials. */
export interface WorkloadAccess {
  /** What is probed, for reports: a Cluster API Cluster's `namespace/name`, or the API server's URL. */
  readonly cluster: string;
  /** The current credentials, re-read when due; throws a KubeError when they cannot be had. */
  resolve(timeoutMs: number): Promise<WorkloadCredentials>;
}
