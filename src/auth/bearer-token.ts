import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config-error.ts';
import type { FileSetting } from '../tls/tls-files.ts';

/** A set token file and the token read from it at start. Never log it. */
export interface LoadedToken {
  readonly file: FileSetting & { readonly path: string };
  readonly token: string;
}

// RFC 6750's b64token, the only characters a token in `Authorization: Bearer <token>` can carry.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Reads a token file: its content trimmed; an unreadable, empty or malformed file is a ConfigError naming the setting. */
export function readTokenFile(file: FileSetting & { readonly path: string }): string {
  let text: string;
  try {
    text = readFileSync(file.path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(file.source, `cannot read ${file.path}: ${code === 'ENOENT' ? 'no such file' : code.toLowerCase()}`);
  }
  const token = text.trim();
  if (token === '') throw new ConfigError(file.source, `${file.path} is empty (it must hold the bearer token)`);
  // Never quote the token, not even a part of it.
  if (!B64TOKEN.test(token)) {
    throw new ConfigError(file.source, `${file.path} does not hold one bearer token (letters, digits and -._~+/ only, on one line)`);
  }
  return token;
}

/** The SHA-256 digest a token is kept and compared as: equal lengths, so the comparison is constant-time. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** What an Authorization header proves: the right token, no token at all, or a wrong one. */
export type BearerCheck = 'ok' | 'missing' | 'invalid';

const BEARER = /^Bearer +(\S+) *$/i;
const BASIC = /^Basic +([A-Za-z0-9+/]+=*) *$/i;

/**
 * Checks an Authorization header against the expected token's digest, in constant time: `Bearer
 * <token>`, or `Basic` with the token as the password (the user is ignored), which is what a browser
 * sends after its own login prompt, so that people can open the guarded status page.
 */
export function checkBearer(authorization: string | undefined, expected: Buffer): BearerCheck {
  if (authorization === undefined) return 'missing';
  const bearer = BEARER.exec(authorization);
  if (bearer) return timingSafeEqual(tokenDigest(bearer[1] as string), expected) ? 'ok' : 'invalid';
  const basic = BASIC.exec(authorization);
  if (basic) {
    const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return 'invalid';
    return timingSafeEqual(tokenDigest(decoded.slice(colon + 1)), expected) ? 'ok' : 'invalid';
  }
  return /^(Bearer|Basic)\b/i.test(authorization) ? 'invalid' : 'missing';
}
