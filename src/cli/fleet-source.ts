import { ConfigError } from '../config/config-error.ts';
import type { FleetDeployment } from '../config/deployment.ts';
import type { FleetSource } from '../fleet-app.ts';
import type { ConfigInput, ConfigResult } from './load-config.ts';
import { readClustersFile } from './read-clusters-file.ts';

/** Where a fleet's clusters come from, as the settings say; or every problem found. */
export type FleetSourceResult = { readonly ok: true; readonly source: FleetSource } | { readonly ok: false; readonly errors: readonly ConfigError[] };

/**
 * The fleet's source: the clusters file, read and checked whole (every cluster's settings and files),
 * or the management cluster that a Cluster API fleet is listed from (the Kubernetes client is loaded
 * only then).
 */
export async function fleetSourceOf(resolved: Extract<ConfigResult, { ok: true }>, deployment: FleetDeployment, input: ConfigInput): Promise<FleetSourceResult> {
  const { config } = resolved;
  switch (deployment.kind) {
    case 'clusters-file': {
      const read = readClustersFile(deployment.file, input, resolved.sources.clustersFile ?? 'ETCD_PROBE_CLUSTERS_FILE');
      return read.ok ? { ok: true, source: { kind: 'file', entries: read.entries } } : read;
    }
    case 'capi-fleet':
      try {
        const { connectionTo } = await import('../discovery/create-kube-source.ts');
        const management = connectionTo(config.managementKubeconfig ?? { kind: 'in-cluster' }, resolved.sources.managementKubeconfig ?? 'ETCD_PROBE_MANAGEMENT_KUBECONFIG', resolved.inCluster);
        const target = { fleet: true, namespace: deployment.namespace } as const;
        return { ok: true, source: { kind: 'capi', management, inCluster: resolved.inCluster, target, selector: deployment.selector } };
      } catch (error) {
        if (error instanceof ConfigError) return { ok: false, errors: [error] };
        throw error;
      }
  }
}
