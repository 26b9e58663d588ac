import { REASONS, type ReasonCode, type Severity } from './reason-catalogue.ts';

/** A member named in a reason or as leader. */
export interface MemberRef {
  readonly id: string;
  readonly name: string;
}

/** One finding of the verdict: what, how bad, about whom, the observed numbers, and what to do. */
export interface Reason {
  readonly code: ReasonCode;
  readonly severity: Severity;
  readonly member: MemberRef | null;
  /** The endpoint concerned, when the finding is about one. */
  readonly endpoint: string | null;
  readonly message: string;
  readonly hint: string;
}

/** Builds a reason from the catalogue, so that the hint always matches the code (and the severity, unless a rule weighs it differently). */
export function reason(
  code: ReasonCode,
  message: string,
  about: { member?: MemberRef | null; endpoint?: string | null; severity?: Severity } = {},
): Reason {
  const entry = REASONS[code];
  return {
    code,
    severity: about.severity ?? entry.severity,
    member: about.member ? { id: about.member.id, name: about.member.name } : null,
    endpoint: about.endpoint ?? null,
    message,
    hint: entry.hint,
  };
}

/** How a member is called in messages: its name, or "member <hex ID>" when it has none (unstarted). */
export function label(member: MemberRef): string {
  return member.name === '' ? `member ${member.id}` : member.name;
}

/** A member's short handle, for labels and columns: its name, or its bare hex ID when it has none. */
export function shortName(member: MemberRef): string {
  return member.name === '' ? member.id : member.name;
}

/** The short handle of the member with this ID among `members`, or the bare ID when none is known. */
export function shortNameOf(id: string, members: readonly MemberRef[]): string {
  const member = members.find((m) => m.id === id);
  return member ? shortName(member) : id;
}
