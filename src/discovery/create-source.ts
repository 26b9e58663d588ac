import type { Config, InClusterAccess } from '../config/config.ts';
import type { TlsProvider } from '../tls/tls-provider.ts';
import type { MemberSource } from './member-source.ts';
import { StaticSource } from './static-source.ts';

/** What a member source is made from besides the config. */
export interface SourceInputs {
  readonly config: Config;
  /** etcd client TLS from files (static and kubeconfig modes), re-read when they change. */
  readonly tls: TlsProvider;
  /** The API server and service-account files for `in-cluster` settings (the resolver's inCluster). */
  readonly inCluster?: InClusterAccess | null;
  /** Epoch ms. */
  readonly now: () => number;
  /** How often secrets are re-read in the Kubernetes modes; SECRET_REFRESH_MS by default. */
  readonly secretRefreshMs?: number;
}

/**
 * The member source the config selects. The Kubernetes modes' code (and @kubernetes/client-node with
 * it) is imported only when one of them is selected. A kubeconfig that cannot be loaded throws a
 * ConfigError naming its setting.
 */
export async function createSource(inputs: SourceInputs): Promise<MemberSource> {
  const { config, tls } = inputs;
  if (config.mode !== 'static') {
    const { createKubeSource } = await import('./create-kube-source.ts');
    return createKubeSource(inputs);
  }
  return new StaticSource({ endpoints: config.endpoints, discover: config.discover, tls, timeoutMs: config.timeoutMs });
}
