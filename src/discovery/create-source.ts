import type { Config, InClusterAccess, KubeconfigRef } from '../config/config.ts';
import { ConfigError } from '../config/config-error.ts';
import { KubeConnection, loadKubeConfig } from '../kube/kube-connection.ts';
import { KubeError } from '../kube/kube-error.ts';
import type { TlsProvider } from '../tls/tls-provider.ts';
import { CapiAccess } from './capi-access.ts';
import { KubeconfigAccess } from './kubeconfig-access.ts';
import { KubeSource } from './kube-source.ts';
import type { MemberSource } from './member-source.ts';
import { StaticSource } from './static-source.ts';

/** Secrets (TLS, Cluster API kubeconfig and CA) are re-read this often, so that rotations are picked up. */
export const SECRET_REFRESH_MS = 60_000;

/** What a member source is made from besides the config. */
export interface SourceInputs {
  readonly config: Config;
  /** etcd client TLS from files (static and kubeconfig modes), re-read when they change. */
  readonly tls: TlsProvider;
  /** The API server and service-account files for `in-cluster` settings (the resolver's inCluster). */
  readonly inCluster?: InClusterAccess | null;
  /** Epoch ms. */
  readonly now: () => number;
  readonly secretRefreshMs?: number;
}

function connectionTo(ref: KubeconfigRef, setting: string, inCluster: InClusterAccess | null): KubeConnection {
  try {
    if (ref.kind === 'file') return new KubeConnection(loadKubeConfig({ kind: 'file', path: ref.path }));
    if (!inCluster) throw new ConfigError(setting, 'in-cluster credentials were not resolved (KUBERNETES_SERVICE_HOST/PORT and the service account files)');
    return new KubeConnection(loadKubeConfig({ kind: 'in-cluster', access: inCluster }));
  } catch (error) {
    if (error instanceof KubeError) throw new ConfigError(setting, error.message);
    throw error;
  }
}

/**
 * The member source the config selects. A kubeconfig that cannot be loaded (invalid file, in-cluster
 * outside a pod) throws a ConfigError naming its setting.
 */
export function createSource(inputs: SourceInputs): MemberSource {
  const { config, tls, now } = inputs;
  const refreshMs = inputs.secretRefreshMs ?? SECRET_REFRESH_MS;
  const base = { nodeSelector: config.nodeSelector, timeoutMs: config.timeoutMs };
  if (config.capiCluster) {
    const management = connectionTo(config.managementKubeconfig ?? { kind: 'in-cluster' }, 'ETCD_PROBE_MANAGEMENT_KUBECONFIG', inputs.inCluster ?? null);
    const access = new CapiAccess({ management, cluster: config.capiCluster, refreshMs, now });
    return new KubeSource({ ...base, mode: 'capi', access, transport: 'port-forward' });
  }
  if (config.kubeconfig) {
    const connection = connectionTo(config.kubeconfig, 'ETCD_PROBE_KUBECONFIG', inputs.inCluster ?? null);
    const access = new KubeconfigAccess({ connection, tlsFiles: tls, tlsSecret: config.tlsSecret, refreshMs, now });
    const transport = config.connect ?? (config.kubeconfig.kind === 'in-cluster' ? 'direct' : 'port-forward');
    return new KubeSource({ ...base, mode: 'kubeconfig', access, transport });
  }
  return new StaticSource({ endpoints: config.endpoints, discover: config.discover, tls, timeoutMs: config.timeoutMs });
}
