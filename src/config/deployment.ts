import { isCapiFleet } from './config.ts';
import type { Settings } from './setting.ts';

/**
 * What the process serves, decided once from the settings: one cluster (the settings say how to reach
 * it), a fleet listed in a clusters file, or a fleet of Cluster API Clusters listed from the management
 * cluster. Everything that differs by deployment switches on `kind`.
 */
export type Deployment =
  | { readonly kind: 'cluster' }
  | { readonly kind: 'clusters-file'; readonly file: string }
  | {
      readonly kind: 'capi-fleet';
      /** The namespace the Clusters are listed in; null: every namespace. */
      readonly namespace: string | null;
      /** The label selector the Clusters must match; null: all of them. */
      readonly selector: string | null;
    };

/** The deployments that serve many clusters. */
export type FleetDeployment = Exclude<Deployment, { readonly kind: 'cluster' }>;

/** The deployment the settings select (the mode rules have refused a clusters file beside a Cluster API target). */
export function deploymentOf(settings: Pick<Settings, 'clustersFile' | 'capiCluster' | 'capiSelector'>): Deployment {
  if (settings.clustersFile !== null) return { kind: 'clusters-file', file: settings.clustersFile };
  if (isCapiFleet(settings.capiCluster)) return { kind: 'capi-fleet', namespace: settings.capiCluster.namespace, selector: settings.capiSelector };
  return { kind: 'cluster' };
}
