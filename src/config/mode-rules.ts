import { ConfigError } from './config-error.ts';
import type { Mode } from './config.ts';
import { deploymentOf } from './deployment.ts';
import type { SettingKey, Settings, Sources } from './setting.ts';
import { REACH_KEYS, settingsOfScope } from './settings.ts';

/** The mode the settings select: a Cluster API cluster, a workload kubeconfig, or static endpoints. */
export function modeOf(values: Pick<Settings, 'capiCluster' | 'kubeconfig'>): Mode {
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
  errors.push(...fleetConflicts(values, sources));
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

// The fleet's settings that only apply once another one selects a fleet: not the clusters file itself (it
// selects one), nor the Cluster API selector (it has an error of its own, naming the fleet it needs).
const FLEET_ONLY: readonly SettingKey[] = settingsOfScope('fleet').filter((k) => k !== 'clustersFile' && k !== 'capiSelector');

function fleetConflicts(values: Settings, sources: Sources): ConfigError[] {
  const errors: ConfigError[] = [];
  const deployment = deploymentOf(values);
  const file = sources.clustersFile;
  if (file) {
    for (const key of REACH_KEYS) {
      const source = sources[key];
      if (source) errors.push(new ConfigError(source, `cannot be combined with ${file}: each cluster of the clusters file names how it is reached`));
    }
  }
  const deny = sources.denyCidrs;
  // The operator's own kubeconfigs (static and kubeconfig modes) are configuration: nothing to deny there.
  if (deny && values.capiCluster === null && deployment.kind !== 'clusters-file') errors.push(new ConfigError(deny, 'applies only to Cluster API mode (ETCD_PROBE_CAPI_CLUSTER, or a clusters file with Cluster API clusters)'));
  const selector = sources.capiSelector;
  if (selector && deployment.kind !== 'capi-fleet') errors.push(new ConfigError(selector, 'applies only to a Cluster API fleet (ETCD_PROBE_CAPI_CLUSTER=* or namespace/*)'));
  if (deployment.kind === 'cluster') {
    for (const key of FLEET_ONLY) {
      const source = sources[key];
      if (source) errors.push(new ConfigError(source, 'applies only in fleet mode (ETCD_PROBE_CLUSTERS_FILE, or ETCD_PROBE_CAPI_CLUSTER=* or namespace/*)'));
    }
  }
  return errors;
}
