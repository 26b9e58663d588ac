import type { EtcdCluster } from '#lab/etcd/cluster.ts';
import type { LoadResult } from './load.ts';
import type { RawEtcd } from './raw-etcd.ts';
import type { ServerChild } from './servers.ts';
import { SETTINGS } from './settings.ts';
import { round } from './stats.ts';

/** What every section works with. */
export interface BenchContext {
  readonly cluster: EtcdCluster;
  /** The service with the cache TTL of SETTINGS.cachedTtl. */
  readonly cached: ServerChild;
  /** The service with TTL 0s: every request that finds no round in flight starts one. */
  readonly cold: ServerChild;
  /** Bare Fastify with the service's body and headers, on the service's Node flags. */
  readonly bare: ServerChild;
  /** The same bare server on Node's default flags: what those flags cost a bare server. */
  readonly bareDefaults: ServerChild;
  readonly raw: RawEtcd;
  readonly step: (text: string) => void;
  /** Readings one section takes and a later one compares with. */
  readonly readings: { bareRssAfterLoad?: number };
}

/** The ETCD_PROBE_* settings that point the service at a TLS cluster (timeout from SETTINGS). */
export function serviceEnv(cluster: EtcdCluster): Record<string, string> {
  const pki = cluster.pki;
  if (!pki) throw new Error('the cluster has no TLS files');
  return {
    ETCD_PROBE_ENDPOINTS: cluster.endpoints,
    ETCD_PROBE_CACERT: pki.caFile,
    ETCD_PROBE_CERT: pki.clientCertFile,
    ETCD_PROBE_KEY: pki.clientKeyFile,
    ETCD_PROBE_TIMEOUT: SETTINGS.timeout,
  };
}

/** The route under test. */
export const HEALTHZ = '/healthz/etcd';

async function serviceMetrics(server: ServerChild): Promise<string> {
  const response = await fetch(`${server.url}/metrics`, { signal: AbortSignal.timeout(5000) });
  return response.text();
}

function sum(text: string, pattern: RegExp): number {
  let total = 0;
  for (const match of text.matchAll(pattern)) total += Number(match[1]);
  return total;
}

/** How many probe rounds the service has run (its etcd_probe_rounds_total, all verdicts). */
export async function roundsTotal(server: ServerChild): Promise<number> {
  return sum(await serviceMetrics(server), /^etcd_probe_rounds_total\{[^}]*\} (\d+)/gm);
}

/** The service's V8 heap (total and used, MB) from its own nodejs_heap_size_* metrics, as note text. */
export async function heapText(server: ServerChild): Promise<string> {
  const text = await serviceMetrics(server);
  const mb = (name: string) => round(sum(text, new RegExp(`^${name} (\\S+)`, 'gm')) / 2 ** 20, 1);
  return `V8 heap ${mb('nodejs_heap_size_total_bytes')} MB (used ${mb('nodejs_heap_size_used_bytes')} MB)`;
}

/** Note text for failed requests of a load run; empty when every response was a 2xx. */
export function failures(name: string, r: LoadResult): string {
  const bad = r.non2xx + r.errors + r.timeouts;
  return bad === 0 ? '' : ` ${name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts of ${r.total}.`;
}
