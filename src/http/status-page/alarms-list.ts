import { html, type SafeHtml } from './html.ts';
import type { AlarmsDoc } from './page-model.ts';

const SOURCE_TEXT: Readonly<Record<string, string>> = {
  'alarm-list': 'the alarm list',
  status: "the members' Status (the alarm list needs quorum and did not answer)",
};

/** The active alarms, where they were read, or that they are unknown; never "none" without a source. */
export function alarmsList(alarms: AlarmsDoc): SafeHtml {
  if (alarms.source === null) {
    return html`<section class="alarms alarms-unknown"><h2>Alarms</h2><p>Unknown: neither the alarm list nor any member's Status answered.</p></section>`;
  }
  const from = SOURCE_TEXT[alarms.source] ?? alarms.source;
  if (alarms.alarms.length === 0) {
    return html`<section class="alarms alarms-none"><h2>Alarms</h2><p>No active alarms (read from ${from}).</p></section>`;
  }
  const items = alarms.alarms.map(
    (a) => html`<li><span class="badge badge-alarm">${a.alarm}</span> on ${a.memberName === '' ? `member ${a.memberId}` : a.memberName}</li>`,
  );
  return html`<section class="alarms alarms-active"><h2>Alarms</h2><ul>${items}</ul><p class="muted">Read from ${from}.</p></section>`;
}
