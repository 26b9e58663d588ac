import { createHash } from 'node:crypto';
import { REFRESH_SCRIPT } from './refresh-script.ts';
import { STYLES } from './styles.ts';

/** A CSP source matching exactly this inline text. */
export function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The page's policy: nothing but its own inline stylesheet and script (by hash: both are constant, so
 * the header is too), data: favicons, and fetches back to this service. Injected markup could run
 * nothing even if escaping ever failed.
 */
export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${sha256Source(STYLES)}`,
  `script-src ${sha256Source(REFRESH_SCRIPT)}`,
  'img-src data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The fragment's policy: it is only ever inserted into the page, and runs or loads nothing of its own. */
export const FRAGMENT_CSP = "default-src 'none'; frame-ancestors 'none'";
