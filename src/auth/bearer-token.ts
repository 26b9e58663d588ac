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

/** What an Authorization header proves: the right token, no bearer token at all, or a wrong one. */
export type BearerCheck = 'ok' | 'missing' | 'invalid';

const BEARER = /^Bearer +(\S+) *$/i;

/** Checks an Authorization header against the expected token's digest, in constant time. */
export function checkBearer(authorization: string | undefined, expected: Buffer): BearerCheck {
  if (authorization === undefined) return 'missing';
  const match = BEARER.exec(authorization);
  if (!match) return /^Bearer\b/i.test(authorization) ? 'invalid' : 'missing';
  return timingSafeEqual(tokenDigest(match[1] as string), expected) ? 'ok' : 'invalid';
}
