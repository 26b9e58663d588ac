import type { ClusterRow } from '../cluster-list-document.ts';
import { clusterPath, worstFirst } from '../cluster-list-document.ts';
import { html, SafeHtml } from './html.ts';
import { STYLES } from './styles.ts';

function statusBadge(row: ClusterRow): SafeHtml {
  if (row.status) return html`<span class="badge badge-${row.status}">${row.status}</span>`;
  return html`<span class="badge">${row.state === 'waiting' ? 'waiting' : 'not checked'}</span>`;
}

function quorumCell(row: ClusterRow): SafeHtml | string {
  const q = row.quorum;
  if (!q) return '';
  return html`${q.healthyVoting}/${q.voting} (needs ${q.required})${q.confirmed ? '' : html` <span class="muted">not confirmed</span>`}`;
}

function rowHtml(row: ClusterRow): SafeHtml {
  const detail = row.waiting ?? (row.reasons.length > 0 ? row.reasons.join(', ') : '');
  const age = row.ageSeconds === null ? '' : `${row.ageSeconds} s`;
  return html`<tr><td><a href="${`.${clusterPath(row.name)}/`}">${row.name}</a>${row.owned ? '' : html` <span class="muted">(other shard)</span>`}</td><td>${statusBadge(row)}</td><td>${detail}</td><td>${quorumCell(row)}</td><td>${row.disruptionsAllowed ?? ''}</td><td>${age}</td></tr>`;
}

/**
 * The fleet's status page: one row per cluster, worst first, each linking to that cluster's own page.
 * Reloads itself (meta refresh: no script of its own) every `reloadSeconds`.
 */
export function renderFleetPage(rows: readonly ClusterRow[], shard: string, reloadSeconds: number): SafeHtml {
  const sorted = worstFirst(rows);
  const worst = sorted[0]?.status ?? 'unknown';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${rows.length} clusters · etcd-probe</title>
<style>${new SafeHtml(STYLES)}</style>
<meta http-equiv="refresh" content="${reloadSeconds}">
</head>
<body>
<header class="top"><h1>etcd-probe fleet</h1><p id="refresh-state">Reloads every ${reloadSeconds} s · shard ${shard}</p></header>
<main id="fleet" data-worst="${worst}">
<table class="fleet"><thead><tr><th>cluster</th><th>status</th><th>reasons</th><th>quorum</th><th>may stop</th><th>age</th></tr></thead>
<tbody>${sorted.map(rowHtml)}</tbody></table>
</main>
<footer>JSON: <a href="clusters">clusters</a> · <a href="metrics">metrics</a> · <a href="openapi.yaml">openapi.yaml</a></footer>
</body>
</html>
`;
}
