import { html, type SafeHtml } from './html.ts';
import type { MemberDoc } from './page-model.ts';

const STATE_TEXT: Readonly<Record<NonNullable<MemberDoc['dataCheck']>['state'], string>> = {
  agrees: 'same as the majority',
  diverged: 'differs from the majority',
  undecided: 'differs, no majority',
  'not-compared': 'not compared',
};

/** A member's part of the last data comparison, as a fact line (nothing when the check is off or has not run). */
export function dataCheckFact(m: MemberDoc): SafeHtml | false {
  const d = m.dataCheck;
  if (!d) return false;
  const hash = d.hash === null ? '' : ` · hash ${d.hash}`;
  const compact = d.compactRevision === null ? '' : ` · compacted at ${d.compactRevision}`;
  return html`<dt>Data</dt><dd title="${d.why ?? `HashKV at revision ${d.revision ?? 'none'}, ${d.at}`}">${STATE_TEXT[d.state]} at revision ${d.revision ?? 'none'}${hash}${compact} · ${d.at}</dd>`;
}

/** The badge of a member confirmed diverged (two comparisons in a row), or nothing. */
export function dataDivergedBadge(m: MemberDoc): SafeHtml | false {
  return m.dataCheck?.diverged === true && html`<span class="badge badge-alarm" title="DATA_DIVERGED: its HashKV differed from the majority's in two comparisons in a row">data diverged</span>`;
}
