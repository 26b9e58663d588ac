import { ConfigError } from '../config/config-error.ts';
import { fileStamp } from './file-stamp.ts';
import { checkTlsFiles, sameTls, type TlsFiles, type TlsMaterial } from './tls-files.ts';
import type { TlsProvider } from './tls-provider.ts';

/** A file that could not be loaded: its path, the setting that names it, and what is wrong. */
export interface ReloadFailure {
  readonly file: string;
  readonly setting: string;
  readonly problem: string;
}

/** What a reloader tells its owner (who logs and counts); never the material's bytes. */
export interface ReloadEvents {
  /** New material is in use. */
  reloaded(material: TlsMaterial): void;
  /** New files were found broken; the previous material stays in use. */
  failed(failure: ReloadFailure): void;
}

/**
 * TLS material read from files and re-read when they change. New files are checked as strictly as at
 * start (readable, PEM, key matching certificate) and, if given, by `accept` (e.g. the listener's
 * setSecureContext); anything wrong keeps the previous material and is reported once per change of the
 * files, so a broken file is not logged again every round.
 */
export class TlsFileReloader implements TlsProvider {
  readonly #files: TlsFiles;
  readonly #events: ReloadEvents;
  readonly #accept: (material: TlsMaterial) => void;
  #material: TlsMaterial;
  #stamp: string;

  constructor(files: TlsFiles, initial: TlsMaterial, events: ReloadEvents, accept: (material: TlsMaterial) => void = () => {}) {
    this.#files = files;
    this.#material = initial;
    this.#events = events;
    this.#accept = accept;
    this.#stamp = this.#currentStamp();
  }

  current(): TlsMaterial {
    return this.#material;
  }

  refresh(): boolean {
    const stamp = this.#currentStamp();
    if (stamp === this.#stamp) return false;
    this.#stamp = stamp;
    const { material, errors } = checkTlsFiles(this.#files);
    if (errors.length > 0) {
      for (const error of errors) this.#events.failed(this.#failure(error));
      return false;
    }
    if (sameTls(material, this.#material)) return false;
    try {
      this.#accept(material);
    } catch (error) {
      // OpenSSL's message names no key bytes; it says what it could not use.
      const problem = `${this.#files.cert.path} and ${this.#files.key.path} cannot be used: ${(error as Error).message}`;
      this.#events.failed({ file: this.#files.cert.path ?? '', setting: this.#files.cert.source, problem });
      return false;
    }
    this.#material = material;
    this.#events.reloaded(material);
    return true;
  }

  #currentStamp(): string {
    return fileStamp([this.#files.ca.path, this.#files.cert.path, this.#files.key.path]);
  }

  #failure(error: ConfigError): ReloadFailure {
    const entry = [this.#files.ca, this.#files.cert, this.#files.key].find((f) => f.source === error.source);
    return { file: entry?.path ?? '', setting: error.source, problem: error.problem };
  }
}
