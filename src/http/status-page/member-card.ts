import type { MemberDisruption } from '../../probe/disruption.ts';
import { label } from '../../probe/reason.ts';
import { dataCheckFact, dataDivergedBadge } from './data-check-fact.ts';
import { dbSizeBar } from './db-size-bar.ts';
import { quotaEtaText } from './quota-eta-text.ts';
import { html, type SafeHtml } from './html.ts';
import type { MemberDoc } from './page-model.ts';

/** What the page says of a member's reachability, one word each. */
export type MemberState = 'healthy' | 'unhealthy' | 'unreachable' | 'unstarted' | 'unknown';

const STATE_TEXT: Readonly<Record<MemberState, string>> = {
  healthy: 'Healthy',
  unhealthy: 'Answers, but its read failed',
  unreachable: 'Unreachable',
  unstarted: 'Added, never started',
  unknown: 'Not probed: health unknown',
};

/** Classifies a member document for the page; a member nobody probed is unknown, never healthy. */
export function memberState(m: MemberDoc): MemberState {
  if (m.reachable) return m.healthy ? 'healthy' : 'unhealthy';
  if (m.name === '' && m.clientURLs.length === 0) return 'unstarted';
  return m.error ? 'unreachable' : 'unknown';
}


function fact(term: string, value: SafeHtml | string): SafeHtml {
  return html`<dt>${term}</dt><dd>${value}</dd>`;
}

// In the Kubernetes modes: the node named like the member, and the etcd pod on it.
function kubernetesFacts(m: MemberDoc): SafeHtml | false {
  if (!('node' in m) || !('pod' in m)) return false;
  const node = m.node ? `${m.node.name} · ${m.node.ready ? 'Ready' : 'NotReady'}${m.node.internalIP ? ` · ${m.node.internalIP}` : ''}` : 'no node of its name';
  const pod = m.pod ? `${m.pod.name} · ${m.pod.ready ? 'Ready' : 'not Ready'}` : 'no etcd pod';
  return html`${fact('Node', node)}${fact('Pod', pod)}`;
}

// Whether the member may stop now: the disruption budget's answer, with why not in its title. A member
// that is not serving is already down: stopping it changes nothing, and a green "safe to stop" beside a
// red "Unreachable" read as if it were fine (issue 26), so it says "already down" in grey.
function safeToStop(d: MemberDisruption | null, state: MemberState): SafeHtml | false {
  if (!d) return false;
  if (state !== 'healthy') {
    return html`<span class="badge badge-down" title="it serves nothing now: stopping it changes nothing; bring it back before stopping another (GET /disruption/${d.member.id})">already down</span>`;
  }
  if (d.stop.safe) return html`<span class="badge badge-safe" title="stopping it keeps quorum (GET /disruption/${d.member.id})">safe to stop</span>`;
  const why = d.stop.reasons.find((r) => r.severity === 'unhealthy')?.message ?? `the cluster would be ${d.stop.after.status}`;
  return html`<span class="badge badge-unsafe" title="${why}">not safe to stop</span>`;
}

/** One member as a card: name and badges, reachability and latency, version, raft progress, database bar, alarms. */
export function memberCard(m: MemberDoc, quotaBytes: number, disruption: MemberDisruption | null = null): SafeHtml {
  const state = memberState(m);
  const s = m.status;
  const latency = m.latencyMs === null ? '' : ` · ${m.latencyMs} ms`;
  return html`<article class="member member-${state}" data-member-id="${m.id}">
<header class="member-head"><h3>${label(m)}</h3>${m.isLeader && html`<span class="badge badge-leader">leader</span>`}${
    m.isLearner && html`<span class="badge badge-learner">learner</span>`
  }${m.alarms.map((a) => html`<span class="badge badge-alarm">${a}</span>`)}${dataDivergedBadge(m)}${safeToStop(disruption, state)}</header>
<p class="state state-${state}"><span class="dot" aria-hidden="true"></span>${STATE_TEXT[state]}${latency}</p>
${m.error && html`<p class="error"><code>${m.error.code}</code> ${m.error.message} <span class="layer">(layer ${m.error.layer})</span></p>`}
<dl class="facts">
${fact('Endpoint', m.endpoint ?? 'none')}
${kubernetesFacts(m)}
${fact('ID', html`<code>${m.id}</code>`)}
${fact('Version', s ? s.version : 'unknown')}
${fact('Raft', s ? `index ${s.raftIndex} · applied ${s.raftAppliedIndex} · term ${s.raftTerm}` : 'unknown')}
${m.quotaEta && fact('Quota ETA', quotaEtaText(m.quotaEta))}
${dataCheckFact(m)}
</dl>
${dbSizeBar(s, quotaBytes)}
</article>`;
}
