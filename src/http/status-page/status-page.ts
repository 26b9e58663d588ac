import { alarmsList } from './alarms-list.ts';
import { endpointList } from './endpoint-list.ts';
import { html, SafeHtml } from './html.ts';
import { memberCard, memberState, type MemberState } from './member-card.ts';
import type { MemberDoc, StatusPageModel } from './page-model.ts';
import { REFRESH_SCRIPT } from './refresh-script.ts';
import { timeline } from './timeline.ts';
import { statusIcon } from './status-colours.ts';
import { STYLES } from './styles.ts';
import { HEADLINE, verdictBanner } from './verdict-banner.ts';

/** The browser tab's title: the verdict first, so it reads in a narrow tab. */
export function pageTitle(model: StatusPageModel): string {
  return `${HEADLINE[model.health.status]} · etcd-probe`;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

const STATE_RANK: Readonly<Record<MemberState, number>> = { unreachable: 0, unhealthy: 1, unstarted: 2, unknown: 3, healthy: 4 };

/** The members with the worst first (a dead member leads, people on call read the first card), else as listed. */
function worstFirst(members: readonly MemberDoc[]): MemberDoc[] {
  return [...members].sort((a, b) => STATE_RANK[memberState(a)] - STATE_RANK[memberState(b)]);
}

function membersSection(model: StatusPageModel): SafeHtml {
  const { members, membershipSource } = model.members;
  const note =
    membershipSource === 'previous-round'
      ? html`<p class="muted">No member list answered this round: the membership shown is the previous round's.</p>`
      : null;
  if (members.length === 0) {
    return html`<section class="members"><h2>Members</h2><p class="empty">No members known: no endpoint answered, and no earlier round listed the membership.</p></section>`;
  }
  return html`<section class="members"><h2>Members <span class="muted">(${members.length})</span></h2>${note}
<div class="member-grid">${worstFirst(members).map((m) => memberCard(m, model.quotaBytes, model.budget?.members.find((d) => d.member.id === m.id) ?? null))}</div></section>`;
}

function checkedLine(model: StatusPageModel): SafeHtml {
  const h = model.health;
  const when = h.checkedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC');
  return html`<p class="checked">Checked <time datetime="${h.checkedAt}">${when}</time> (round took ${seconds(Math.round(h.durationMs))}) · mode ${h.mode} · policy ${h.policy} · cache TTL ${seconds(model.cacheTtlMs)}${
    h.clusterId && html` · cluster <code>${h.clusterId}</code>`
  }</p>`;
}

/** The part of the page that changes each round: the script swaps it in place, without reloading. */
export function renderStatusFragment(model: StatusPageModel): SafeHtml {
  return html`<main id="status" data-status="${model.health.status}" data-title="${pageTitle(model)}" data-next-refresh-ms="${Math.round(model.nextRefreshMs)}" data-checked-at="${model.health.checkedAt}" data-round-ms="${model.health.durationMs}">
${verdictBanner(model.health)}
${membersSection(model)}
${model.history && timeline(model.history, model.history.records.at(-1) ?? null)}
${endpointList(model.members)}
${alarmsList(model.alarms)}
${checkedLine(model)}
</main>`;
}

/**
 * The whole page: readable as served (the noscript refresh reloads it), live with the script.
 * `serviceRoot` leads from the page to the service's own routes (metrics, openapi.yaml): empty for a
 * single cluster's page at `/`, `../../` for a fleet cluster's page at `/clusters/{cluster}/`, which
 * also links back to the fleet.
 */
export function renderStatusPage(model: StatusPageModel, serviceRoot = ''): SafeHtml {
  const reloadSeconds = Math.max(5, Math.ceil(model.cacheTtlMs / 1000));
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${pageTitle(model)}</title>
<link rel="icon" href="${statusIcon(model.health.status)}">
<style>${new SafeHtml(STYLES)}</style>
<noscript><meta http-equiv="refresh" content="${reloadSeconds}"></noscript>
</head>
<body>
<header class="top"><h1>etcd-probe</h1><p id="refresh-state">Reloads every ${reloadSeconds} s</p></header>
${renderStatusFragment(model)}
<footer>${serviceRoot ? html`<a href="${serviceRoot}">all clusters</a> · ` : ''}JSON: <a href="healthz/etcd">healthz/etcd</a> · <a href="members">members</a> · <a href="alarms">alarms</a> · <a href="history">history</a> · <a href="disruption">disruption</a> · <a href="${serviceRoot}metrics">metrics</a> · <a href="${serviceRoot}openapi.yaml">openapi.yaml</a></footer>
<script>${new SafeHtml(REFRESH_SCRIPT)}</script>
</body>
</html>
`;
}
