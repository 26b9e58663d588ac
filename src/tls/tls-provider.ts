import type { TlsMaterial } from './tls-files.ts';

/**
 * The seam through which member sources get etcd client credentials: the material to build new clients
 * with now, and a check for new material. The prober calls refresh() at the start of each round and
 * replaces its clients when it returns true, so a round never mixes old and new credentials.
 */
export interface TlsProvider {
  /** The material new clients are built with. */
  current(): TlsMaterial;
  /** Looks for new material; true when current() changed (clients built before must be replaced). */
  refresh(): boolean;
}

/** Material that never changes (tests, or credentials that come with the source). */
export function fixedTls(material: TlsMaterial): TlsProvider {
  return { current: () => material, refresh: () => false };
}
