/** ETCD_PROBE_MAX_MEMBERS's default: etcd clusters have 3, 5, at most 7 voting members. */
export const MAX_MEMBERS = 16;

/** A DNS subdomain (RFC 1123, lowercase, at most 253 characters), as Kubernetes requires of a node name. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether a node name from a workload cluster's API is one Kubernetes allows (anything else is not probed). */
export function isNodeName(name: string): boolean {
  return name.length <= 253 && DNS_SUBDOMAIN.test(name);
}

/** What the bounds did to one listing of nodes. */
export interface NodeBounds {
  /** Nodes whose names are not DNS subdomains: not probed, never named. */
  readonly invalidNames: number;
  /** Valid nodes past MAX_MEMBERS (in name order): not probed. */
  readonly leftOut: number;
  /** The bound that applied. */
  readonly max: number;
}

/** Keeps the nodes with valid names, the first `max` by name (the listing is sorted); says what was dropped. */
export function boundNodes<T>(nodes: readonly T[], nameOf: (node: T) => string, max = MAX_MEMBERS): { kept: T[]; bounds: NodeBounds } {
  const valid = nodes.filter((n) => isNodeName(nameOf(n)));
  const kept = valid.slice(0, max);
  return { kept, bounds: { invalidNames: nodes.length - valid.length, leftOut: valid.length - kept.length, max } };
}
