import { STATUS_CODES } from 'node:http';

/** The most characters of a peer's own words that ever reach a report, a page or a log. */
export const PEER_TEXT_MAX_CHARS = 200;

/** The most bytes of an HTTP error body that are read to find a Status message. */
export const PEER_ERROR_BODY_MAX_BYTES = 16 * 1024;

// C0 and C1 controls, DEL, bidi overrides and zero-width characters: nothing that moves a terminal's
// cursor or reorders what a reader sees.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]+/g;

/**
 * A peer's text as it may be shown: controls replaced by a space, runs of blanks collapsed, at most
 * PEER_TEXT_MAX_CHARS characters (an ellipsis says that more was cut). An API server, a kubelet or a
 * TLS stack of a tenant's choosing writes it; it is data, never markup, and never unbounded.
 */
export function sanitisePeerText(text: string, max: number = PEER_TEXT_MAX_CHARS): string {
  const clean = text.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  return `${[...clean].slice(0, max - 1).join('')}…`;
}

function generic(status: number): string {
  const name = STATUS_CODES[status];
  return name ? `HTTP ${status} ${name}` : `HTTP ${status}`;
}

function parsed(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  if (body.length > PEER_ERROR_BODY_MAX_BYTES) return null;
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

/**
 * What an HTTP error answer may say about itself: the `message` of a Kubernetes `kind: Status` object,
 * sanitised and capped; any other body (HTML, plain text, JSON of another shape, a body past
 * PEER_ERROR_BODY_MAX_BYTES) only as the generic name of its status ("HTTP 502 Bad Gateway").
 */
export function statusMessageOf(body: unknown, status: number): string {
  const value = parsed(body);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const { kind, message } = value as { kind?: unknown; message?: unknown };
    if (kind === 'Status' && typeof message === 'string') {
      const text = sanitisePeerText(message);
      if (text !== '') return text;
    }
  }
  return generic(status);
}
