import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { ConfigError } from './config-error.ts';
import type { InClusterAccess } from './config.ts';
import type { Settings, Sources } from './setting.ts';

/** Where Kubernetes mounts a pod's service account. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The setting that asks for in-cluster credentials, or null when none does. */
function inClusterSetting(config: Pick<Settings, 'kubeconfig' | 'capiCluster' | 'managementKubeconfig'>, sources: Sources): string | null {
  if (config.kubeconfig?.kind === 'in-cluster') return sources.kubeconfig ?? 'ETCD_PROBE_KUBECONFIG';
  if (config.capiCluster && (config.managementKubeconfig === null || config.managementKubeconfig.kind === 'in-cluster')) {
    return sources.managementKubeconfig ?? 'ETCD_PROBE_MANAGEMENT_KUBECONFIG';
  }
  return null;
}

/** The in-cluster access a setting asks for, with the setting (for messages about its files); null when none does. */
export interface InClusterRequest {
  readonly setting: string;
  /** null when the environment lacks KUBERNETES_SERVICE_HOST/PORT (then `errors` says so). */
  readonly access: InClusterAccess | null;
  readonly errors: readonly ConfigError[];
}

/**
 * In-cluster credentials when a setting asks for them: the API server from KUBERNETES_SERVICE_HOST/PORT
 * and where the service account's files are. Whether those files can be read is the start-up's file
 * step (cli/read-setting-files.ts), so that a pod without them fails at start, naming the setting.
 */
export function inClusterRequest(
  config: Pick<Settings, 'kubeconfig' | 'capiCluster' | 'managementKubeconfig'>,
  sources: Sources,
  env: Readonly<Record<string, string | undefined>>,
  serviceAccountDir: string,
): InClusterRequest | null {
  const setting = inClusterSetting(config, sources);
  if (setting === null) return null;
  const host = env.KUBERNETES_SERVICE_HOST?.trim();
  const port = env.KUBERNETES_SERVICE_PORT?.trim();
  if (!host || !port) {
    const problem = 'in-cluster credentials need KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, which Kubernetes sets in every pod: run inside a pod, or give a kubeconfig file';
    return { setting, access: null, errors: [new ConfigError(setting, problem)] };
  }
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  return { setting, access: { server, caFile: join(serviceAccountDir, 'ca.crt'), tokenFile: join(serviceAccountDir, 'token') }, errors: [] };
}
