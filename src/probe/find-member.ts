import type { MemberView } from './cluster-view.ts';
import { isHexId } from './member-id.ts';
import { label } from './reason.ts';

/** The member a caller means by `key`: its hex ID (any case) or its exact name; null when none matches. */
export function findMember(members: readonly MemberView[], key: string): MemberView | null {
  const id = key.toLowerCase();
  return (isHexId(id) ? members.find((m) => m.id === id) : undefined) ?? members.find((m) => m.name !== '' && m.name === key) ?? null;
}

/** The members a caller may name, for "no such member" answers: "m1 (8e9e05c52164694d), …". */
export function knownMembers(members: readonly MemberView[]): string {
  return members.map((m) => (m.name === '' ? m.id : `${label(m)} (${m.id})`)).join(', ');
}
