import { ConfigError } from '../config/config-error.ts';
import { fileStamp } from '../tls/file-stamp.ts';
import type { ReloadFailure } from '../tls/tls-file-reloader.ts';
import type { FileSetting } from '../tls/tls-files.ts';
import { readTokenFile, tokenDigest } from './bearer-token.ts';

/** What a token file tells its owner; never the token. */
export interface TokenFileEvents {
  reloaded(): void;
  failed(failure: ReloadFailure): void;
}

/**
 * The bearer token, kept only as its digest, re-read when its file changes (a rotated Secret). A file
 * that becomes unreadable, empty or malformed fails closed: no token is accepted until it is valid
 * again (an emptied Secret is a revocation, not a reason to keep the old token), reported once per change.
 */
export class TokenFile {
  readonly #file: FileSetting & { readonly path: string };
  readonly #events: TokenFileEvents;
  #digest: Buffer | null;
  #stamp: string;

  constructor(file: FileSetting & { readonly path: string }, token: string, events: TokenFileEvents) {
    this.#file = file;
    this.#events = events;
    this.#digest = tokenDigest(token);
    this.#stamp = fileStamp([file.path]);
  }

  /** The digest of the token in force; null while the file is unusable and no token is accepted. */
  digest(): Buffer | null {
    return this.#digest;
  }

  /** Re-reads the file if it changed; true when a new token is in force (also after an unusable file recovered). */
  refresh(): boolean {
    const stamp = fileStamp([this.#file.path]);
    if (stamp === this.#stamp) return false;
    this.#stamp = stamp;
    let digest: Buffer;
    try {
      digest = tokenDigest(readTokenFile(this.#file));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.#digest = null;
      this.#events.failed({ file: this.#file.path, setting: error.source, problem: error.problem });
      return false;
    }
    if (this.#digest?.equals(digest)) return false;
    this.#digest = digest;
    this.#events.reloaded();
    return true;
  }
}
