import type { Policy } from '../config/config.ts';
import type { MemberView } from '../probe/cluster-view.ts';
import { memberFitness } from '../probe/member-fitness.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import { freshness } from './documents.ts';
import { JSON_TYPE, perRound, represent, TEXT_TYPE, type Representation } from './representation.ts';
import type { Audience } from './verdict-audience.ts';


/** The `/healthz/etcd/members/{idOrName}` document: the member, fit or not, why, and the reasons that decided. */
export function memberHealthDocument(snapshot: Snapshot, member: MemberView, policy: Policy) {
  const fitness = memberFitness(snapshot.verdict, member, policy);
  return {
    member: { id: member.id, name: member.name },
    fit: fitness.fit,
    policy,
    why: fitness.why,
    status: snapshot.verdict.status,
    reasons: fitness.reasons,
    ...freshness(snapshot),
  };
}

/** The same for a caller without the token: fit or not, the policy and the reason codes; no names, no hosts. */
export function memberHealthSummaryDocument(snapshot: Snapshot, member: MemberView, policy: Policy) {
  const fitness = memberFitness(snapshot.verdict, member, policy);
  return { fit: fitness.fit, policy, reasons: fitness.reasons.map((r) => ({ code: r.code, severity: r.severity })) };
}

function renderText(snapshot: Snapshot, member: MemberView, policy: Policy, audience: Audience): string {
  const fitness = memberFitness(snapshot.verdict, member, policy);
  const lines = [audience === 'full' ? `${fitness.fit ? '[+]' : '[-]'}member ${fitness.why}` : `member ${fitness.fit ? 'fit' : 'unfit'}`];
  lines.push(`status ${snapshot.verdict.status} (policy ${policy})`);
  for (const r of fitness.reasons) {
    lines.push(audience === 'full' ? `reason ${r.code} (${r.severity}): ${r.message}` : `reason ${r.code} (${r.severity})`);
  }
  lines.push(fitness.fit ? 'healthz check passed' : 'healthz check failed');
  return `${lines.join('\n')}\n`;
}

/** The answer for one member of a round, 200 when fit and 503 when not, rendered once per round, policy, format and audience. */
export function memberHealthRepresentation(snapshot: Snapshot, member: MemberView, policy: Policy, text: boolean, audience: Audience): Representation {
  return perRound(snapshot, `member-healthz ${member.id} ${policy} ${text ? 'text' : 'json'} ${audience}`, () => {
    const status = memberFitness(snapshot.verdict, member, policy).fit ? 200 : 503;
    if (text) return represent(status, TEXT_TYPE, renderText(snapshot, member, policy, audience));
    const document = audience === 'full' ? memberHealthDocument(snapshot, member, policy) : memberHealthSummaryDocument(snapshot, member, policy);
    return represent(status, JSON_TYPE, JSON.stringify(document));
  });
}
