import { accessSync, constants } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { ConfigError } from './config-error.ts';
import type { Config, InClusterAccess } from './config.ts';
import type { SettingKey } from './settings.ts';

/** Where Kubernetes mounts a pod's service account. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

type Sources = Readonly<Partial<Record<SettingKey, string>>>;

/** The setting that asks for in-cluster credentials, or null when none does. */
function inClusterSetting(config: Pick<Config, 'kubeconfig' | 'capiCluster' | 'managementKubeconfig'>, sources: Sources): string | null {
  if (config.kubeconfig?.kind === 'in-cluster') return sources.kubeconfig ?? 'ETCD_PROBE_KUBECONFIG';
  if (config.capiCluster && (config.managementKubeconfig === null || config.managementKubeconfig.kind === 'in-cluster')) {
    return sources.managementKubeconfig ?? 'ETCD_PROBE_MANAGEMENT_KUBECONFIG';
  }
  return null;
}

/**
 * In-cluster credentials when a setting asks for them: the API server from KUBERNETES_SERVICE_HOST/PORT
 * and the service account's files, each checked now so that a pod without them fails at start, naming
 * the setting, instead of every round failing later.
 */
export function resolveInCluster(
  config: Pick<Config, 'kubeconfig' | 'capiCluster' | 'managementKubeconfig'>,
  sources: Sources,
  env: Readonly<Record<string, string | undefined>>,
  serviceAccountDir: string,
): { access: InClusterAccess | null; errors: ConfigError[] } {
  const setting = inClusterSetting(config, sources);
  if (setting === null) return { access: null, errors: [] };
  const host = env.KUBERNETES_SERVICE_HOST?.trim();
  const port = env.KUBERNETES_SERVICE_PORT?.trim();
  if (!host || !port) {
    const problem = 'in-cluster credentials need KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, which Kubernetes sets in every pod: run inside a pod, or give a kubeconfig file';
    return { access: null, errors: [new ConfigError(setting, problem)] };
  }
  const errors: ConfigError[] = [];
  const caFile = join(serviceAccountDir, 'ca.crt');
  const tokenFile = join(serviceAccountDir, 'token');
  for (const file of [caFile, tokenFile]) {
    try {
      accessSync(file, constants.R_OK);
    } catch {
      errors.push(new ConfigError(setting, `in-cluster credentials need ${file}: is the service account token mounted (automountServiceAccountToken)?`));
    }
  }
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  return { access: errors.length === 0 ? { server, caFile, tokenFile } : null, errors };
}
