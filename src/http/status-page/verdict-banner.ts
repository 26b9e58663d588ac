import { html, type SafeHtml } from './html.ts';
import type { HealthDoc } from './page-model.ts';
import { leaderSentence } from '../../probe/leader-sentence.ts';
import { quorumSentence } from '../../probe/quorum-sentence.ts';

/** The verdict in one capitalised word, as the banner and the tab title say it. */
export const HEADLINE: Readonly<Record<HealthDoc['status'], string>> = {
  healthy: 'Healthy',
  degraded: 'Degraded',
  unhealthy: 'Unhealthy',
};

function leaderLine(health: HealthDoc): string {
  return `Leader: ${leaderSentence(health).text}`;
}

/** The verdict as a coloured banner: status, quorum, leader, then every reason with its hint, most severe first. */
export function verdictBanner(health: HealthDoc): SafeHtml {
  const reasons = health.reasons.map(
    (r) => html`<li class="reason reason-${r.severity}">
<p><span class="reason-code">${r.code}</span> <span class="reason-severity">${r.severity}</span> ${r.message}</p>
<p class="hint">${r.hint}</p>
</li>`,
  );
  return html`<section class="verdict verdict-${health.status}" aria-labelledby="verdict-title">
<h2 id="verdict-title" class="verdict-title">${HEADLINE[health.status]}</h2>
<p class="verdict-facts"><span class="quorum">${quorumSentence(health)}</span> · <span class="leader">${leaderLine(health)}</span></p>
${reasons.length > 0 ? html`<ul class="reasons">${reasons}</ul>` : html`<p class="no-reasons">No findings: every check passed.</p>`}
</section>`;
}
