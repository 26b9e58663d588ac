import { Etcd3MemberClient } from '../etcd/etcd3-member-client.ts';
import { normalizeEndpoint, preferredClientUrl } from '../probe/endpoint-url.ts';
import type { MemberClient } from '../probe/member-client.ts';
import type { ListedMember } from '../probe/observations.ts';
import type { ProbeTarget } from '../probe/probe-target.ts';
import type { TlsProvider } from '../tls/tls-provider.ts';
import type { MemberSource } from './member-source.ts';

/** Static mode's settings. */
export interface StaticSourceOptions {
  readonly endpoints: readonly string[];
  /** Also probe every listed member's advertised client URL, like `etcdctl --cluster`. */
  readonly discover: boolean;
  /** etcd client credentials; read for each new client, refreshed at the start of each round. */
  readonly tls: TlsProvider;
  readonly timeoutMs: number;
}

/** Static endpoints: the configured URLs, plus (with discovery) each listed member's advertised client URL. */
export class StaticSource implements MemberSource {
  readonly mode = 'static';
  readonly #options: StaticSourceOptions;
  readonly #configured: readonly ProbeTarget[];

  constructor(options: StaticSourceOptions) {
    this.#options = options;
    this.#configured = options.endpoints.map((endpoint) => ({ key: endpoint, endpoint, origin: 'configured' as const }));
  }

  async targets(listed: readonly ListedMember[]): Promise<readonly ProbeTarget[]> {
    if (!this.#options.discover) return this.#configured;
    const covered = new Set(this.#configured.map((t) => normalizeEndpoint(t.endpoint)));
    const discovered: ProbeTarget[] = [];
    for (const member of listed) {
      if (member.clientURLs.some((url) => covered.has(normalizeEndpoint(url)))) continue;
      const url = preferredClientUrl(member.clientURLs);
      if (url === null) continue;
      covered.add(normalizeEndpoint(url));
      discovered.push({ key: normalizeEndpoint(url), endpoint: url, origin: 'discovered' });
    }
    return [...this.#configured, ...discovered];
  }

  connect(target: ProbeTarget): MemberClient {
    return new Etcd3MemberClient({ endpoint: target.endpoint, tls: this.#options.tls.current(), timeoutMs: this.#options.timeoutMs });
  }

  refreshCredentials(): boolean {
    return this.#options.tls.refresh();
  }

  async close(): Promise<void> {}
}
