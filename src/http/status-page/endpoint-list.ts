import { html, type SafeHtml } from './html.ts';
import type { MembersDoc } from './page-model.ts';

/**
 * Probed endpoints that no member card accounts for (nothing answered there, so no member is known
 * for them): with no membership at all these are the only place the page can say what went wrong.
 */
export function endpointList(members: MembersDoc): SafeHtml | null {
  const loose = members.endpoints.filter((e) => e.memberId === null && !members.members.some((m) => m.endpoint === e.endpoint));
  if (loose.length === 0) return null;
  const rows = loose.map(
    (e) => html`<li><code>${e.endpoint}</code> (${e.origin}): ${e.error ? html`<code>${e.error.code}</code> ${e.error.message}` : 'no answer'}</li>`,
  );
  return html`<section class="endpoints"><h2>Endpoints without a member</h2><ul>${rows}</ul></section>`;
}
