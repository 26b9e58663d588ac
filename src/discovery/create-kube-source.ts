import type { InClusterAccess, KubeconfigRef } from '../config/config.ts';
import { ConfigError } from '../config/config-error.ts';
import { DialGuard } from '../kube/dial-guard.ts';
import { KubeConnection, loadKubeConfig } from '../kube/kube-connection.ts';
import { KubeError } from '../kube/kube-error.ts';
import { CapiAccess } from './capi-access.ts';
import type { DiscoveredSource } from './discovered-source.ts';
import { KubeconfigAccess } from './kubeconfig-access.ts';
import { KubeSource } from './kube-source.ts';
import type { SourceInputs } from './source-inputs.ts';

/** Secrets (TLS, Cluster API kubeconfig and CA) are re-read this often, so that rotations are picked up. */
export const SECRET_REFRESH_MS = 60_000;

/** A connection to the API server a kubeconfig setting names; a kubeconfig that cannot be loaded is a ConfigError naming `setting`. */
export function connectionTo(ref: KubeconfigRef, setting: string, inCluster: InClusterAccess | null): KubeConnection {
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
 * The member source of a Kubernetes mode. A kubeconfig that cannot be loaded (invalid file, in-cluster
 * credentials missing) throws a ConfigError naming its setting. Loaded only in those modes: the
 * Kubernetes client costs some 90 MB of memory that static mode has no use for.
 */
export function createKubeSource(inputs: SourceInputs): DiscoveredSource {
  const { config, tls, now } = inputs;
  const refreshMs = inputs.secretRefreshMs ?? SECRET_REFRESH_MS;
  const base = { nodeSelector: config.nodeSelector, timeoutMs: config.timeoutMs, maxMembers: config.maxMembers };
  if (config.capiCluster) {
    const management = inputs.management ?? connectionTo(config.managementKubeconfig ?? { kind: 'in-cluster' }, 'ETCD_PROBE_MANAGEMENT_KUBECONFIG', inputs.inCluster ?? null);
    const access = new CapiAccess({ management, cluster: config.capiCluster, refreshMs, now, dialGuard: new DialGuard(config.denyCidrs) });
    return new KubeSource({ ...base, mode: 'capi', access, transport: 'port-forward' });
  }
  if (!config.kubeconfig) throw new Error('createKubeSource needs ETCD_PROBE_KUBECONFIG or ETCD_PROBE_CAPI_CLUSTER');
  const connection = connectionTo(config.kubeconfig, 'ETCD_PROBE_KUBECONFIG', inputs.inCluster ?? null);
  const access = new KubeconfigAccess({ connection, tlsFiles: tls, tlsSecret: config.tlsSecret, refreshMs, now });
  const transport = config.connect ?? (config.kubeconfig.kind === 'in-cluster' ? 'direct' : 'port-forward');
  return new KubeSource({ ...base, mode: 'kubeconfig', access, transport });
}
