import { normalizeEndpoint } from './endpoint-url.ts';
import type { EndpointObservation, ListedMember } from './observations.ts';

/** The member ID an endpoint answered as (Status, else MemberList); null when it answered neither. */
export function respondentOf(o: EndpointObservation): string | null {
  if (o.status.ok) return o.status.value.memberId;
  if (o.memberList.ok) return o.memberList.value.memberId;
  return null;
}

/** The cluster ID an endpoint answered with; null when it answered neither Status nor MemberList. */
export function clusterIdOf(o: EndpointObservation): string | null {
  if (o.status.ok) return o.status.value.clusterId;
  if (o.memberList.ok) return o.memberList.value.clusterId;
  return null;
}

/** Why a probed target is where a member should answer: it is the member's advertised URL, or its node's etcd. */
export type Claim = 'advertised-url' | 'node-name';

/**
 * Rule "claim": a target stands for a member when it dials one of the member's advertised client URLs,
 * or (Kubernetes modes) the etcd of the node named like the member, as kubeadm names members after nodes.
 */
export function claimOf(o: EndpointObservation, member: ListedMember): Claim | null {
  const url = normalizeEndpoint(o.target.endpoint);
  if (member.clientURLs.some((u) => normalizeEndpoint(u) === url)) return 'advertised-url';
  if (member.name !== '' && o.target.node === member.name) return 'node-name';
  return null;
}

/** How one observation relates to one listed member, by the rule that decides it. */
export type Relation =
  /** Rule "answered-as": it answered with the member's ID, and does not stand for another member. */
  | 'answered-as'
  /** Rule "stands-for": it failed before saying who it is, at a place that claims to be the member. */
  | 'stands-for'
  /** Rule "impostor": it stands for the member but answered as another one: reported, never trusted. */
  | 'impostor'
  | 'unrelated';

/** The member an observation claims to be (by URL or node), if it answered as someone else: it is not trusted at all. */
export function impersonated(o: EndpointObservation, members: readonly ListedMember[]): ListedMember | null {
  const id = respondentOf(o);
  if (id === null) return null;
  return members.find((m) => m.id !== id && claimOf(o, m) !== null) ?? null;
}

/**
 * Relates an observation of this cluster to a listed member. The rules, in order: an impostor (it
 * stands for one member and answered as another) counts for nobody but is reported against the member
 * it stands for; an answer with the member's ID counts for it; an endpoint that failed before saying
 * who it is counts for the member it stands for.
 */
export function relate(o: EndpointObservation, member: ListedMember, members: readonly ListedMember[]): Relation {
  const id = respondentOf(o);
  const claim = claimOf(o, member);
  if (id !== null && id !== member.id) return claim !== null ? 'impostor' : 'unrelated';
  if (id === member.id) return impersonated(o, members) === null ? 'answered-as' : 'unrelated';
  return claim !== null ? 'stands-for' : 'unrelated';
}

/** Prefers observations that answered, then those at the member's own URL: the first is the member's primary. */
export function rankFor(member: ListedMember): (a: EndpointObservation, b: EndpointObservation) => number {
  const score = (o: EndpointObservation) => (o.status.ok ? 0 : 2) + (claimOf(o, member) === 'advertised-url' ? 0 : 1);
  return (a, b) => score(a) - score(b);
}
