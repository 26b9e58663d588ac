import { formatBytes } from '../../probe/format-bytes.ts';
import { QUOTA_CRITICAL_RATIO, QUOTA_HIGH_RATIO } from '../../probe/member-checks.ts';
import { html, type SafeHtml } from './html.ts';

/** The bar's length in SVG user units; widths are shares of it. */
export const BAR_UNITS = 1000;
/** A database that is not empty never draws narrower than this, so a small one still shows. */
const MIN_VISIBLE_UNITS = 2;

/** A database's allocated file and the part of it in use, in bytes. */
export interface DbSizes {
  readonly dbSizeBytes: number;
  readonly dbSizeInUseBytes: number;
}

/** How full the database is, as the verdict's DB_QUOTA_HIGH thresholds grade it. */
export type QuotaLevel = 'ok' | 'high' | 'critical';

/** Grades allocated/quota with the verdict's own thresholds, so the bar turns colour when the reason appears. */
export function quotaLevel(ratio: number): QuotaLevel {
  if (ratio >= QUOTA_CRITICAL_RATIO) return 'critical';
  if (ratio >= QUOTA_HIGH_RATIO) return 'high';
  return 'ok';
}

/** A share as people read it: 0%, <1%, 42%, 125%; floored so that a database short of its quota never reads 100%. */
export function formatPercent(ratio: number): string {
  if (ratio <= 0) return '0%';
  if (ratio < 0.01) return '<1%';
  return `${Math.floor(ratio * 100)}%`;
}

function units(bytes: number, scale: number): number {
  if (bytes <= 0) return 0;
  return Math.max(MIN_VISIBLE_UNITS, Math.round((bytes / scale) * BAR_UNITS * 10) / 10);
}

/**
 * The database against the quota: the allocated file, the part in use inside it (the gap between the
 * two is what a defrag would reclaim), and a quota mark. Beyond the quota the bar rescales so the
 * overflow shows past the mark. SVG attributes rather than inline styles, which the CSP forbids.
 */
export function dbSizeBar(sizes: DbSizes | null, quotaBytes: number): SafeHtml {
  if (!sizes) return html`<div class="db db-unknown"><p class="db-text">Database size unknown: the member did not answer Status</p></div>`;
  const { dbSizeBytes: allocated, dbSizeInUseBytes: inUse } = sizes;
  const quota = quotaBytes > 0 ? quotaBytes : Math.max(allocated, 1);
  const ratio = allocated / quota;
  const level = quotaLevel(ratio);
  const over = allocated > quota;
  const scale = Math.max(quota, allocated);
  const quotaAt = Math.round((quota / scale) * BAR_UNITS * 10) / 10;
  const text =
    `${formatBytes(inUse)} in use of ${formatBytes(allocated)} allocated, ` +
    `${formatPercent(ratio)} of the ${formatBytes(quota)} quota${over ? ': over quota' : ''}`;
  return html`<div class="db db-${level}">
<p class="db-text">${text}</p>
<svg class="bar" viewBox="0 0 ${BAR_UNITS} 16" preserveAspectRatio="none" role="img" aria-label="${text}">
<rect class="bar-track" x="0" y="0" width="${quotaAt}" height="16"/>
<rect class="bar-allocated" x="0" y="0" width="${units(allocated, scale)}" height="16"/>
<rect class="bar-in-use" x="0" y="0" width="${units(Math.min(inUse, allocated), scale)}" height="16"/>
${over && html`<rect class="bar-quota" x="${Math.max(0, quotaAt - 3)}" y="0" width="3" height="16"/>`}
</svg>
</div>`;
}
