import type { HistoryReport } from '../../probe/history/history-report.ts';
import type { MemberState, RoundRecord } from '../../probe/history/round-record.ts';
import { label } from '../../probe/reason.ts';
import { html, type SafeHtml } from './html.ts';

/** How many slots a strip has: one per minute of the default one-hour window. */
export const TIMELINE_SLOTS = 60;

/** One slot of a member's strip: the worst state its rounds saw, or `none` without rounds. */
export type SlotState = 'healthy' | 'degraded' | 'unreachable' | 'none';

const WORST: Readonly<Record<MemberState, SlotState>> = { healthy: 'healthy', unhealthy: 'degraded', unknown: 'degraded', unreachable: 'unreachable' };
const RANK: Readonly<Record<SlotState, number>> = { none: 0, healthy: 1, degraded: 2, unreachable: 3 };

function clock(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}

/** Which slot of the window a time falls into. */
function slotOf(report: HistoryReport, at: number): number {
  const width = (report.to - report.from) / TIMELINE_SLOTS;
  return Math.min(TIMELINE_SLOTS - 1, Math.max(0, Math.floor((at - report.from) / width)));
}

/** A member's strip over the window: the worst state per slot. Pure. */
export function memberSlots(report: HistoryReport, memberId: string): SlotState[] {
  const slots: SlotState[] = Array.from({ length: TIMELINE_SLOTS }, () => 'none');
  for (const r of report.records) {
    const m = r.members.find((x) => x.id === memberId);
    if (!m) continue;
    const i = slotOf(report, r.at);
    const state = WORST[m.state];
    if (RANK[state] > RANK[slots[i] as SlotState]) slots[i] = state;
  }
  return slots;
}

function leaderMarks(report: HistoryReport): SafeHtml[] {
  const marks = new Map<number, string[]>();
  for (const t of report.transitions) {
    if (t.kind !== 'leader') continue;
    const i = slotOf(report, t.at);
    marks.set(i, [...(marks.get(i) ?? []), `${clock(t.at)} ${label(t.from)} → ${label(t.to)}${t.afterQuorumLoss ? ' (after quorum loss)' : ''}`]);
  }
  return Array.from({ length: TIMELINE_SLOTS }, (_, i) => {
    const here = marks.get(i);
    return here ? html`<span class="mark" title="${here.join('; ')}">▲</span>` : html`<span class="mark"></span>`;
  });
}

function summary(report: HistoryReport, id: string): string {
  const m = report.members.find((x) => x.member.id === id);
  if (!m) return '';
  const share = m.healthyShare === null ? 'no rounds' : `healthy in ${Math.round(m.healthyShare * 100)}% of rounds`;
  const failure = m.lastFailure ? ` · last failure ${clock(m.lastFailure.at)} UTC: ${m.lastFailure.code ?? ''} ${m.lastFailure.message}` : '';
  return `${share} · ${m.changes} ${m.changes === 1 ? 'change' : 'changes'}${failure}`;
}

/**
 * The last window as one strip per member (healthy / degraded / unreachable per minute), with leader
 * changes marked above: plain HTML and CSS, readable without JavaScript; each slot says its state in a title.
 */
export function timeline(report: HistoryReport, latest: RoundRecord | null): SafeHtml {
  const members = latest?.members ?? [];
  if (report.rounds === 0 || members.length === 0) {
    return html`<section class="timeline"><h2>Last hour</h2><p class="muted">No rounds yet. History is kept in memory only and starts with the service.</p></section>`;
  }
  const width = Math.round((report.to - report.from) / TIMELINE_SLOTS / 1000);
  const rows = members.map((m) => {
    const slots = memberSlots(report, m.id);
    return html`<div class="tl-row"><span class="tl-name">${label(m)}</span><span class="tl-strip" role="img" aria-label="${label(m)}: ${summary(report, m.id)}">${slots.map(
      (s, i) => html`<span class="slot slot-${s}" title="${clock(report.from + i * width * 1000)} ${s}"></span>`,
    )}</span><span class="tl-summary">${summary(report, m.id)}</span></div>`;
  });
  const elections = report.elections === 0 ? 'no leader change' : `${report.elections} leader ${report.elections === 1 ? 'election' : 'elections'} (▲)`;
  return html`<section class="timeline"><h2>Last ${Math.round((report.to - report.from) / 60_000)} minutes <span class="muted">(${report.rounds} rounds, ${elections}; one slot per ${width} s)</span></h2>
<div class="tl-row tl-marks"><span class="tl-name"></span><span class="tl-strip">${leaderMarks(report)}</span></div>
${rows}
<p class="muted tl-legend"><span class="slot slot-healthy"></span> healthy <span class="slot slot-degraded"></span> degraded <span class="slot slot-unreachable"></span> unreachable <span class="slot slot-none"></span> no round</p>
</section>`;
}
