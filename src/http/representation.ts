import { createHash } from 'node:crypto';

/** The content type of JSON answers. */
export const JSON_TYPE = 'application/json; charset=utf-8';
/** The content type of text answers (kube-style healthz lines, text errors). */
export const TEXT_TYPE = 'text/plain; charset=utf-8';

/** One answer as sent: status, content type, the bytes, and their entity tag. Rendered once, served many times. */
export interface Representation {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** A strong ETag: a digest of the status, content type and bytes. */
  readonly etag: string;
}

/**
 * Renders an answer's bytes once. The ETag is a digest of exactly what is sent, so two answers share it
 * only when they are byte for byte the same (a policy, a format or the token's summary are different
 * bytes, hence different tags), and an answer that did not change from one round to the next (the
 * summary of a steady cluster) keeps its tag, so pollers that revalidate keep getting 304.
 */
export function represent(status: number, contentType: string, text: string): Representation {
  const body = Buffer.from(text, 'utf8');
  const digest = createHash('sha256').update(`${status} ${contentType}\n`).update(body).digest('base64url');
  return { status, contentType, body, etag: `"${digest.slice(0, 27)}"` };
}

const rendered = new WeakMap<object, Map<string, Representation>>();
// The round asked for last and its map: nearly every request asks for the current round.
let lastRound: object | null = null;
let lastRendered = new Map<string, Representation>();

/**
 * The representation `key` of a round (its snapshot), rendered on first use and kept as long as the
 * round is: every later request for it costs a map lookup. Keys are bounded by the routes' variants
 * and the members (e.g. `/members/{id}` per member), so a round holds at most a few dozen.
 */
export function perRound(round: object, key: string, render: () => Representation): Representation {
  if (round !== lastRound) {
    let byKey = rendered.get(round);
    if (byKey === undefined) {
      byKey = new Map();
      rendered.set(round, byKey);
    }
    lastRound = round;
    lastRendered = byKey;
  }
  let representation = lastRendered.get(key);
  if (representation === undefined) {
    representation = render();
    lastRendered.set(key, representation);
  }
  return representation;
}
