import { Etcd3MemberClient } from '../etcd/etcd3-member-client.ts';
import { normalizeEndpoint, preferredClientUrl } from '../probe/endpoint-url.ts';
import type { MemberClient } from '../probe/member-client.ts';
import type { MemberSource } from '../probe/member-source.ts';
import type { ListedMember } from '../probe/observations.ts';
import type { ProbeTarget } from '../probe/probe-target.ts';
import type { TlsProvider } from '../tls/tls-provider.ts';

/** Static mode's settings. */
export interface StaticSourceOptions {
  readonly endpoints: readonly string[];
  /** Also probe every listed member's advertised client URL, like `etcdctl --cluster`. */
  readonly discover: boolean;
  /** etcd client credentials; read for each new client, refreshed at the start of each round. */
  readonly tls: TlsProvider;
  readonly timeoutMs: number;
}

/**
 * Static endpoints: the configured URLs, plus (with discovery) each listed member's advertised client URL.
 * Certificate files are re-read at the start of each round; new ones make a new generation in every
 * target's key, so that the round dials with them (MemberSource: one rotation path for every mode).
 */
export class StaticSource implements MemberSource {
  readonly mode = 'static';
  readonly #options: StaticSourceOptions;
  #generation = 1;

  constructor(options: StaticSourceOptions) {
    this.#options = options;
  }

  // Not async: the check runs before the prober asks for targets, so the whole round sees the new files.
  refresh(): Promise<null> {
    if (this.#options.tls.refresh()) this.#generation++;
    return Promise.resolve(null);
  }

  async targets(listed: readonly ListedMember[]): Promise<readonly ProbeTarget[]> {
    const configured = this.#options.endpoints.map((endpoint) => this.#target(endpoint, endpoint, 'configured'));
    if (!this.#options.discover) return configured;
    const covered = new Set(this.#options.endpoints.map(normalizeEndpoint));
    const discovered: ProbeTarget[] = [];
    for (const member of listed) {
      if (member.clientURLs.some((url) => covered.has(normalizeEndpoint(url)))) continue;
      const url = preferredClientUrl(member.clientURLs);
      if (url === null) continue;
      covered.add(normalizeEndpoint(url));
      discovered.push(this.#target(normalizeEndpoint(url), url, 'discovered'));
    }
    return [...configured, ...discovered];
  }

  connect(target: ProbeTarget): MemberClient {
    return new Etcd3MemberClient({ endpoint: target.endpoint, tls: this.#options.tls.current(), timeoutMs: this.#options.timeoutMs });
  }

  async close(): Promise<void> {}

  #target(name: string, endpoint: string, origin: 'configured' | 'discovered'): ProbeTarget {
    return { key: `${name}#${this.#generation}`, endpoint, origin };
  }
}
