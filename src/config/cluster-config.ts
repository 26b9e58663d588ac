import type { Config, DerivedKey } from './config.ts';
import type { FLEET_SETTINGS } from './fleet-settings.ts';
import type { KUBE_SETTINGS } from './kube-settings.ts';
import type { LISTENER_SETTINGS } from './listener-settings.ts';
import type { PROBE_SETTINGS } from './probe-settings.ts';
import type { Scope } from './setting.ts';
import { JUDGE_KEYS, REACH_KEYS } from './settings.ts';

type Table = typeof PROBE_SETTINGS & typeof KUBE_SETTINGS & typeof FLEET_SETTINGS & typeof LISTENER_SETTINGS;

/** The keys of the settings of some scopes, by type (settingsOfScope is the list at run time). */
export type KeyOfScope<S extends Scope> = { [K in keyof Table]: Table[K]['scope'] extends S ? K : never }[keyof Table];

// The service's guard against a tenant's kubeconfig pointing inward: set once for the process, used by
// every Cluster API cluster's port-forwards.
const CARRIED = ['denyCidrs'] as const;

/** The fields of one cluster's settings: how to reach it and how to judge it, what is derived of them, and the deny list. */
export type ClusterKey = Extract<KeyOfScope<'reach' | 'judge'> | (typeof CARRIED)[number] | DerivedKey, keyof Config>;

/** One cluster's settings, all a cluster's runtime (source, prober, round cache, routes) reads; a fleet's clusters carry no more. */
export type ClusterConfig = Pick<Config, ClusterKey>;

/** The settings of the service itself: the listener, the token, the log, the fleet; one per process. */
export type ServiceConfig = Omit<Config, ClusterKey>;

/** The fields of ClusterKey at run time, derived from the scopes as the type is. */
export const CLUSTER_KEYS = [...REACH_KEYS, ...JUDGE_KEYS, ...CARRIED, 'mode', 'historyMaxBytes'] as readonly ClusterKey[];

/** One cluster's settings out of the process's (or a cluster's own, from a clusters file): frozen, nothing of the service. */
export function clusterConfigOf(config: ClusterConfig): ClusterConfig {
  return Object.freeze(Object.fromEntries(CLUSTER_KEYS.map((k) => [k, config[k]]))) as ClusterConfig;
}
