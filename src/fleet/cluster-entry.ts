import type { ClusterConfig } from '../config/cluster-config.ts';
import type { InClusterAccess } from '../config/config.ts';
import type { TlsFiles, TlsMaterial } from '../tls/tls-files.ts';

/** One cluster of a fleet: its name and its own resolved settings, or why it is not probed yet. */
export interface ClusterEntry {
  /** How routes, metrics and the page name it: a clusters file's `name`, or a Cluster's `namespace/name`. */
  readonly name: string;
  /** What its shard is hashed from: a Cluster's uid (its creator cannot choose it to land on one shard); absent: `name`. */
  readonly shardKey?: string;
  /** Its settings: the process's, with the cluster's own mode settings and overrides. */
  readonly config: ClusterConfig;
  /** etcd client TLS as read at start (a clusters file's files); empty in a Cluster API fleet (minted). */
  readonly tls: TlsMaterial;
  /** Its TLS files, re-read when they change; absent: `tls` is fixed. */
  readonly tlsFiles?: TlsFiles;
  readonly inCluster: InClusterAccess | null;
  /** null: probe it; else why it is not probed yet, e.g. `provisioning (phase Provisioning)`. */
  readonly waiting: string | null;
  /** Changes whenever the cluster must be rebuilt (its settings changed, or it stopped waiting). */
  readonly revision: string;
}
