/** One place to probe: an etcd client endpoint and how it came to be probed. */
export interface ProbeTarget {
  /** Stable identity: one client is kept per key across rounds. */
  readonly key: string;
  /** The URL shown to operators. */
  readonly endpoint: string;
  /** `configured` by the operator, or `discovered` from a member list. */
  readonly origin: 'configured' | 'discovered';
}
