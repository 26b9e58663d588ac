import type { CapiTarget, Config, DerivedKey } from './config.ts';

/**
 * Every setting's value: decoded from what the user gave, or its default. Config holds them resolved,
 * less what selects the Deployment (the clusters file, a Cluster API fleet and its selector).
 */
export type Settings = Omit<Config, DerivedKey | 'capiCluster'> & {
  readonly capiCluster: CapiTarget | null;
  readonly capiSelector: string | null;
  readonly clustersFile: string | null;
};

/** The settings a user sets. */
export type SettingKey = keyof Settings;

/** The variable or flag each value the user gave came from, e.g. `{certFile: '--cert'}`. */
export type Sources = Readonly<Partial<Record<SettingKey, string>>>;

/**
 * What a setting is about: how to reach a cluster (each cluster of a clusters file names its own), how to
 * probe and judge it (a clusters file may override it per cluster), the service itself, or fleet mode.
 */
export type Scope = 'reach' | 'judge' | 'service' | 'fleet';

/** The scopes, in the order the help text explains them. */
export const SCOPES: readonly Scope[] = ['reach', 'judge', 'service', 'fleet'];

interface SettingSpec<K extends SettingKey> {
  readonly key: K;
  readonly env: string;
  readonly flag: string;
  readonly scope: Scope;
  readonly help: string;
  readonly parse: (raw: string) => Settings[K];
}

/**
 * One setting: its environment variable, its flag, its default and how its text is decoded. The default
 * is written as a user would write it (`fallback`), or, for an optional setting, is `absent` (null).
 */
export type Setting<K extends SettingKey = SettingKey> = SettingSpec<K> &
  ({ readonly fallback: string } | { readonly fallback: null; readonly absent: Settings[K] });

/** Some of the settings, each typed by its own key (the table is made of such groups). */
export type SettingGroup = { readonly [K in SettingKey]?: Setting<K> };
