import { ConfigError } from './config-error.ts';
import type { Config, Mode } from './config.ts';
import type { SettingKey, Settings, Sources } from './setting.ts';

/** The mode the settings select: a Cluster API cluster, a workload kubeconfig, or static endpoints. */
export function modeOf(values: Pick<Config, 'capiCluster' | 'kubeconfig'>): Mode {
  if (values.capiCluster) return 'capi';
  if (values.kubeconfig) return 'kubeconfig';
  return 'static';
}

/**
 * Settings that contradict the selected mode, each as an error naming the setting: a value that would
 * be silently ignored is a mistake the user wants to hear about.
 */
export function modeConflicts(values: Settings, sources: Sources): ConfigError[] {
  const errors: ConfigError[] = [];
  const given = (key: SettingKey) => sources[key];
  const capi = given('capiCluster');
  const kubeconfig = given('kubeconfig');
  if (capi && kubeconfig) {
    errors.push(new ConfigError(kubeconfig, `cannot be combined with ${capi}: Cluster API mode reads the workload kubeconfig from the cluster's secret`));
  }
  const mode = modeOf(values);
  if (mode !== 'static') {
    for (const key of ['endpoints', 'discover'] as const) {
      const source = given(key);
      if (source) errors.push(new ConfigError(source, `is for static endpoints; in ${mode} mode members are found through the Kubernetes API`));
    }
  } else {
    for (const key of ['nodeSelector', 'connect', 'tlsSecret', 'managementKubeconfig'] as const) {
      const source = given(key);
      if (source) errors.push(new ConfigError(source, 'applies only with ETCD_PROBE_KUBECONFIG or ETCD_PROBE_CAPI_CLUSTER'));
    }
  }
  if (mode === 'capi') {
    for (const key of ['caFile', 'certFile', 'keyFile', 'tlsSecret'] as const) {
      const source = given(key);
      if (source) errors.push(new ConfigError(source, "is not used in Cluster API mode: etcd's CA comes from the <cluster>-etcd secret"));
    }
    const connect = given('connect');
    if (connect && values.connect !== 'port-forward') errors.push(new ConfigError(connect, 'Cluster API mode always reaches members by port-forward'));
  }
  if (mode === 'kubeconfig') {
    const managementKubeconfig = given('managementKubeconfig');
    if (managementKubeconfig) errors.push(new ConfigError(managementKubeconfig, 'applies only with ETCD_PROBE_CAPI_CLUSTER'));
    const tlsSecret = given('tlsSecret');
    const files = (['caFile', 'certFile', 'keyFile'] as const).map(given).filter((s) => s !== undefined);
    if (tlsSecret && files.length > 0) errors.push(new ConfigError(tlsSecret, `cannot be combined with ${files.join(', ')}: take etcd's TLS from one place`));
  }
  return errors;
}
