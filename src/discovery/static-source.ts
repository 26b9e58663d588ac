import { Etcd3MemberClient } from '../etcd/etcd3-member-client.ts';
import { normalizeEndpoint, preferredClientUrl } from '../probe/endpoint-url.ts';
import type { MemberClient } from '../probe/member-client.ts';
import type { MemberSource } from '../probe/member-source.ts';
import type { ListedMember } from '../probe/observations.ts';
import { probeError, type ProbeError } from '../probe/outcome.ts';
import type { ProbeTarget } from '../probe/probe-target.ts';
import type { TlsProvider } from '../tls/tls-provider.ts';
import { RefusedMemberClient } from './refused-member-client.ts';

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
 * When every configured endpoint is https, a member's advertised URL is followed only over https: an
 * http:// one (MemberList is what any member says) is refused, never dialled in clear text.
 */
export class StaticSource implements MemberSource {
  readonly mode = 'static';
  readonly #options: StaticSourceOptions;
  #generation = 1;
  /** Discovered targets that are not dialled, by key, and why. */
  #refused = new Map<string, ProbeError>();

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
    const tlsOnly = this.#options.endpoints.every((e) => /^https:\/\//i.test(e));
    const discovered: ProbeTarget[] = [];
    this.#refused = new Map();
    for (const member of listed) {
      if (member.clientURLs.some((url) => covered.has(normalizeEndpoint(url)))) continue;
      const secure = preferredClientUrl(member.clientURLs.filter((url) => /^https:\/\//i.test(url)));
      const url = tlsOnly ? (secure ?? preferredClientUrl(member.clientURLs)) : preferredClientUrl(member.clientURLs);
      if (url === null) continue;
      covered.add(normalizeEndpoint(url));
      const target = this.#target(normalizeEndpoint(url), url, 'discovered');
      if (tlsOnly && secure === null) {
        const shown = normalizeEndpoint(url);
        this.#refused.set(
          target.key,
          probeError('ENDPOINT_REFUSED', `not dialled: member ${member.id} advertises ${shown} in MemberList, which is not https while every configured endpoint is (the client certificate is offered over TLS only)`, 'tls'),
        );
      }
      discovered.push(target);
    }
    return [...configured, ...discovered];
  }

  connect(target: ProbeTarget): MemberClient {
    const refused = this.#refused.get(target.key);
    if (refused) return new RefusedMemberClient(refused);
    return new Etcd3MemberClient({ endpoint: target.endpoint, tls: this.#options.tls.current(), timeoutMs: this.#options.timeoutMs });
  }

  async close(): Promise<void> {}

  #target(name: string, endpoint: string, origin: 'configured' | 'discovered'): ProbeTarget {
    return { key: `${name}#${this.#generation}`, endpoint, origin };
  }
}
