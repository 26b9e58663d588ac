/** One place to probe: an etcd client endpoint and how it came to be probed. */
export interface ProbeTarget {
  /** Stable identity: one client is kept per key across rounds. */
  readonly key: string;
  /** The URL shown to operators. */
  readonly endpoint: string;
  /** `configured` by the operator, `discovered` from a member list, or found through the `kubernetes` API. */
  readonly origin: 'configured' | 'discovered' | 'kubernetes';
  /** The Kubernetes node the target stands for (kubeadm names members after nodes); absent in static mode. */
  readonly node?: string;
}
