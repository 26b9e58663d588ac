import { FLEET_SETTINGS } from './fleet-settings.ts';
import { KUBE_SETTINGS } from './kube-settings.ts';
import { LISTENER_SETTINGS } from './listener-settings.ts';
import { PROBE_SETTINGS } from './probe-settings.ts';
import type { Scope, Setting, SettingKey } from './setting.ts';

/** Every setting by key, in the order the help text and README list them; typed per key. */
export const SETTING_TABLE: { readonly [K in SettingKey]: Setting<K> } = { ...PROBE_SETTINGS, ...KUBE_SETTINGS, ...FLEET_SETTINGS, ...LISTENER_SETTINGS };

/** Every setting, in the order the help text and README list them. */
export const SETTINGS: readonly Setting[] = Object.values(SETTING_TABLE);

/** The keys of the settings of one scope, in the settings order. */
export function settingsOfScope(scope: Scope): readonly SettingKey[] {
  return SETTINGS.filter((s) => s.scope === scope).map((s) => s.key);
}

/** How one cluster is reached: a clusters file's cluster names its own, none is inherited from the process. */
export const REACH_KEYS: readonly SettingKey[] = settingsOfScope('reach');

/** How one cluster is probed and judged: the process's settings, which a clusters file's cluster may override. */
export const JUDGE_KEYS: readonly SettingKey[] = settingsOfScope('judge');
